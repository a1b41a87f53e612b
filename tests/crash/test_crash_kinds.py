"""A program that torch.compile stops: each crash kind as a small real program, run once under plain python (the
oracle: torch's own exception type and message, so a torch that stops raising is noticed) and once under
`tdiag run`: the same exit code, the same stderr up to tdiag's summary, and the cause as the first finding on the
user's line."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from oracle import run_plain
from oracle_cache import kept_run
from tdiag.analyzer import build

PROGRAMS = Path(__file__).parent / "programs"
TORCH_RELEASE = ".".join(version("torch").split("+")[0].split(".")[:2])  # the message names it: "inside torch 2.13"
SUMMARY_RULE = "tdiag: what torch.compile did"
# torch's glog-style log lines carry a time stamp and a pid: the only part of stderr that differs run to run
LOG_PREFIX = re.compile(r"^[EWI]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", re.M)
KEPT_CACHE_DIR = re.compile(r"temporary cache dir kept at \S+")  # Inductor's own mkdtemp name, different every run


def _same_run_to_run(stderr: str) -> str:
    return KEPT_CACHE_DIR.sub("temporary cache dir kept at TMP", LOG_PREFIX.sub("", stderr))


@dataclass
class Case:
    program: str
    exception: str  # what plain python prints as the exception's type
    says: str  # a part of torch's message
    code: str  # the first finding
    line_text: str  # the user line it must be on
    in_message: str  # what the finding must name
    exit_code: int = 1
    env: dict | None = None


CASES = [
    Case("fullgraph_branch.py", "torch._dynamo.exc.Unsupported", "Data-dependent branching", "CRS001",
         "if h.sum() > 0:", "graph break GB0170 (Data-dependent branching) here is an error under fullgraph=True; "
         "the compiled call at fullgraph_branch.py:13"),
    Case("error_on_graph_break.py", "torch._dynamo.exc.Unsupported", "Failed to trace builtin operator", "CRS001",
         'print("y is ready")', "error under torch._dynamo.error_on_graph_break(True)"),
    Case("data_dependent_guard.py", "torch._dynamo.exc.UserError", "Could not guard on data-dependent expression",
         "CRS002", "if n > 2:", "cannot decide `zuf0 > 2.0`"),
    Case("stance_fail_on_recompile.py", "RuntimeError", "Detected recompile when torch.compile stance is 'fail_on_recompile'",
         "CRS003", "out = compiled(torch.ones(4, 3))",
         "guard failed: tensor 'x' rank mismatch. expected 1, actual 2) and torch.compiler.set_stance(\"fail_on_recompile\")"),
    Case("error_on_recompile.py", "torch._dynamo.exc.RecompileError", "Recompiling function step", "CRS003",
         "out = compiled(torch.ones(4), 3)", "guard failed: scale == 2) and torch._dynamo.config.error_on_recompile"),
    Case("recompile_limit_hit.py", "torch._dynamo.exc.FailOnRecompileLimitHit", "fail_on_recompile_limit_hit", "CRS003",
         "out = compiled(torch.ones(4, dtype=dtype))",
         "step (recompile_limit_hit.py:7) reached the recompile limit after 2 recompilations (guard failed: tensor 'x' dtype mismatch"),
    # the user's own backend raised: its line, with the compiled call that reached it
    Case("backend_failed.py", "torch._dynamo.exc.BackendCompilerFailed", "my backend cannot handle this graph", "CRS004",
         'raise RuntimeError("my backend cannot handle this graph")',
         "backend 'broken_backend' raised RuntimeError: my backend cannot handle this graph; the compiled call at "
         "backend_failed.py:13"),
    Case("constraint_violation.py", "torch.fx.experimental.symbolic_shapes.ConstraintViolationError",
         "specialized it to be a constant (8)", "CRS006", "if x.shape[0] == 8:",
         "x.size()[0] was marked dynamic (mark_dynamic) but the code specialised it to 8"),  # as the user names x
    Case("fake_tensor_error.py", "torch._dynamo.exc.TorchRuntimeError", "RuntimeError when making fake tensor call",
         "CRS099", "return a @ b", "a and b must have same reduction dim"),
    # torch's own bug (valid code; eagerly it prints): the torch-bug finding, not CRS099's "fix what torch names"
    Case("torch_internal_error.py", "torch._dynamo.exc.InternalTorchDynamoError",
         "ValueError: Unknown format code 'f' for object of type 'str'", "CRS008", 'print(f"rows {x.shape[0]:.1f}")',
         f"torch.compile failed inside torch {TORCH_RELEASE} (a torch bug, not your code): ValueError: Unknown format "
         "code 'f' for object of type 'str'; the compiled call at torch_internal_error.py:21"),
    Case("thread_fullgraph.py", "torch._dynamo.exc.Unsupported", "Data-dependent branching", "CRS001",
         "if h.sum() > 0:", "thread 'trainer' stopped: graph break GB0170", exit_code=0),
    pytest.param(  # a real lowering error: a custom op has no lowering, and implicit fallbacks are off
        Case("inductor_lowering.py", "torch._inductor.exc.InductorError", "MissingOperatorWithoutDecomp", "CRS004",
             "return scale(y) + 1", "missing lowering (op tdiag_crash.scale.default); the compiled call at "
             "inductor_lowering.py:22 raised InductorError"),
        marks=pytest.mark.inductor, id="inductor_lowering.py"),
    pytest.param(
        Case("no_cxx_compiler.py", "torch._inductor.exc.InductorError", "InvalidCxxCompiler", "CRS005",
             "out = compiled(torch.ones(16))", "no working C++ compiler",
             env={"CXX": "/nonexistent/bin/g++", "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}),
        marks=pytest.mark.inductor, id="no_cxx_compiler.py"),
]


def _id(case) -> str:
    return case.program if isinstance(case, Case) else case.id


@pytest.fixture(scope="module")
def runs(tmp_path_factory, session_env):
    """program -> (plain python, tdiag run, run dir): each program runs once per way, the two ways side by side."""
    base = tmp_path_factory.mktemp("crash")
    done: dict[str, tuple] = {}

    def get(case: Case):
        if case.program not in done:
            env = {**session_env, **(case.env or {})}
            run_dir = base / case.program.removesuffix(".py")
            under = ["run", "--no-tui", "-o", str(run_dir), case.program]
            with ThreadPoolExecutor(2) as pool:
                # the plain run is torch's own behaviour: kept between test runs where nothing it depends on changed
                plain = pool.submit(kept_run, run_plain, PROGRAMS / case.program, env, base / "untraced")
                traced = pool.submit(kept_tdiag, under, PROGRAMS, env, timeout=300)
                done[case.program] = (plain.result(), traced.result(), run_dir)
        return done[case.program]

    return get


def _program_part(stderr: str) -> str:
    """The program's own stderr: what comes before tdiag's end-of-run summary."""
    head, rule, _ = stderr.partition(SUMMARY_RULE)
    assert rule, stderr[-2000:]
    # the summary opens with a blank line, then its rule line: the program's part ends before that blank line
    return head[: head.rfind("\n")]


def _line_of(program: str, text: str) -> int:
    lines = (PROGRAMS / program).read_text().splitlines()
    (number,) = [i for i, line in enumerate(lines, start=1) if line.strip() == text]
    return number


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_crash_is_the_first_finding(case: Case, runs):
    plain, under, run_dir = runs(case)
    # the oracle: torch really raises this, without tdiag
    assert plain.returncode == case.exit_code, plain.stderr[-2000:]
    assert f"\n{case.exception}: " in plain.stderr and case.says in plain.stderr, plain.stderr[-2000:]
    # tdiag changes nothing the program shows
    assert under.returncode == plain.returncode
    assert under.stdout == plain.stdout
    assert _same_run_to_run(_program_part(under.stderr)) == _same_run_to_run(plain.stderr)
    # ... and says why it stopped, first, on the user's line
    analysis = build(run_dir)
    first = analysis.findings[0]
    assert (first.code, first.path, first.line) == (case.code, case.program, _line_of(case.program, case.line_text))
    assert first.severity == "error" and case.in_message in first.message, first.message
    assert analysis.summary.crash is not None and analysis.summary.crash.exception == case.exception
    assert [f.code for f in analysis.findings if f.family == "CRS"] == [case.code]
    # "ran eagerly instead" and "compiled nothing" are false of a program that stopped
    assert not any(f.code in ("CMP003", "DST002") for f in analysis.findings)
    # the console summary says it under the counts, before any other finding
    summary = under.stderr.partition(SUMMARY_RULE)[2]
    stopped = "program stopped" if case.exit_code else "thread 'trainer' stopped"
    assert f"{stopped}: {case.exception.rsplit('.', 1)[-1]} raised by torch.compile - {case.code}" in " ".join(summary.split())
    others = [summary.find(f.code) for f in analysis.findings[1:]]  # informational ones are not listed there
    assert summary.find(case.code) < min((at for at in others if at >= 0), default=len(summary))


def test_json_and_lint_lead_with_the_crash(runs, session_env):
    """`tdiag report --format json` carries summary.crash; `tdiag lint` lists CRS first and exits 1."""
    import json

    _, _, run_dir = runs(CASES[3])  # fail_on_recompile: its recompile finding (RCP) sorts after it in file order too
    report = subprocess.run([sys.executable, "-m", "tdiag", "report", str(run_dir), "--format", "json", "--no-code"],
                            env=session_env, capture_output=True, text=True, timeout=120)
    crash = json.loads(report.stdout)["summary"]["crash"]
    assert crash["kind"] == "recompile_policy" and crash["policy"] == 'torch.compiler.set_stance("fail_on_recompile")'
    assert crash["site"]["line"] == _line_of("stance_fail_on_recompile.py", "out = compiled(torch.ones(4, 3))")
    lint = subprocess.run([sys.executable, "-m", "tdiag", "lint", str(run_dir), "--format", "concise"],
                          env=session_env, capture_output=True, text=True, timeout=120)
    assert lint.returncode == 1
    assert lint.stdout.splitlines()[0].startswith("stance_fail_on_recompile.py:11:1: CRS003 the program stopped")
    only_others = subprocess.run([sys.executable, "-m", "tdiag", "lint", str(run_dir), "--select", "BRK"],
                                 env=session_env, capture_output=True, text=True, timeout=120)
    assert "not an all-clear" in only_others.stdout + only_others.stderr


def test_the_programs_own_error_is_not_blamed_on_torch(tmp_path, session_env):
    """A ValueError of the program's own after a good compile: recorded, but no CRS finding and no DST002."""
    run_dir = tmp_path / "run"
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", str(run_dir), "program_error.py"],
                      PROGRAMS, session_env, timeout=300)
    assert proc.returncode == 1 and "\nValueError: the program's own error after a good compile" in proc.stderr
    analysis = build(run_dir)
    (crash,) = analysis.crashes
    assert crash.exception == "ValueError" and not crash.caused_by_torch and analysis.summary.crash is None
    assert analysis.findings == []


def test_capture_api_records_the_crash_of_its_block(tmp_path, session_env):
    """tdiag.capture(): the block's exception propagates unchanged and its analysis leads with the cause."""
    proc = subprocess.run([sys.executable, "capture_api.py", str(tmp_path / "cap")], cwd=PROGRAMS, env=session_env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["raised through the capture: Unsupported",
                                        f"CRS001 capture_api.py {_line_of('capture_api.py', 'if x.sum() > 0:')}"]


FIXABLE = [
    # (case, the line the patch must add)
    (CASES[0], "+    return torch.where(h.sum() > 0, h + 1, h - 1)"),
    (CASES[7], "+torch._dynamo.maybe_mark_dynamic(x, 0)"),
]


@pytest.mark.parametrize("case, added", FIXABLE, ids=[c.program for c, _ in FIXABLE])
def test_fix_verify_runs_the_stopped_program_to_its_end(case, added, runs, session_env):
    """`tdiag fix RECORD --verify` on the recorded crash: the patch targets the cause, and the patched program runs
    to its end (exit 0), printing what it printed before and then the rest."""
    import json

    _, _, run_dir = runs(case)
    proc = kept_tdiag(["fix", str(run_dir), "--verify", "--repeat", "1", "--format", "json"],
                      PROGRAMS, session_env, timeout=600)
    data = json.loads(proc.stdout)
    (patch,) = data["patches"]
    assert patch["codes"] == [case.code] and added in patch["patch"].splitlines()
    (result,) = data["verification"]
    assert proc.returncode == 0 and result["ok"] and result["completed"], result["problems"]
    assert result["before"]["exit_code"] == 1 and result["after"]["exit_code"] == 0
    assert case.code in result["gone"] and not result["new"]
    assert result["stdout_diff"] == [f"+done {16.0 if case.program == 'constraint_violation.py' else 12.0}"]


def test_tui_overview_and_html_report_lead_with_the_crash(runs, tmp_path):
    """The TUI overview (Textual pilot) and the HTML report (real headless chromium) show "program stopped" above
    everything, and the CRS finding first."""
    import asyncio
    import shutil

    from tdiag.reports.html.render import render
    from tdiag.tui import make_app

    analysis = build(runs(CASES[0])[2])

    async def overview() -> None:
        app = make_app(analysis)
        async with app.run_test(size=(140, 40)):
            screen = app.screen
            order = [w.id for w in screen.query("Static") if w.id in ("crash", "headline", "top-title")]
            assert order == ["crash", "headline", "top-title"]
            text = str(screen.query_one("#crash").render())
            assert "program stopped: Unsupported raised by torch.compile - CRS001 at fullgraph_branch.py:6" in text

    asyncio.run(overview())

    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("chromium is not installed")
    report = tmp_path / "report.html"
    report.write_text(render(analysis), encoding="utf-8")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(report.as_uri())
        banner = page.locator("#crash")
        assert banner.is_visible()
        assert "program stopped: Unsupported raised by torch.compile - CRS001" in banner.inner_text()
        banner.locator("a").click()  # the banner links to the finding
        assert page.evaluate("location.hash") == f"#{analysis.findings[0].anchor}"
        first_code = page.locator("#findings [id^='CRS'], #findings [id^='BRK'], #findings [id^='CMP']").first
        assert (first_code.get_attribute("id") or "").startswith("CRS001")
        browser.close()


def test_fix_verify_works_around_torchs_own_bug(runs, session_env):
    """CRS008: the patch disables the smallest user function around the line (report, not the compiled step), and
    `tdiag fix --verify` proves it: the program runs to its end, printing what it printed before and then the rest.
    The only new finding is the break the workaround itself makes where step calls the disabled function. The
    finding carries the facts for a bug report."""
    import json

    case = next(c for c in CASES if isinstance(c, Case) and c.code == "CRS008")
    _, _, run_dir = runs(case)
    finding = build(run_dir).findings[0]
    report = finding.suggestion.alternatives[-1]
    assert f"torch {version('torch')}" in report and 'torch_internal_error.py:9 `print(f"rows {x.shape[0]:.1f}")`' in report
    assert "InternalTorchDynamoError: ValueError: Unknown format code 'f'" in report and "@torch.compile" in report
    proc = kept_tdiag(["fix", str(run_dir), "--verify", "--repeat", "1", "--format", "json"],
                      PROGRAMS, session_env, timeout=600)
    data = json.loads(proc.stdout)
    (patch,) = data["patches"]
    assert patch["codes"] == ["CRS008"]
    added = [ln for ln in patch["patch"].splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert added == ["+@torch.compiler.disable"] and "\n+@torch.compiler.disable\n def report(x):" in patch["patch"]
    (result,) = data["verification"]
    assert proc.returncode == 0 and result["ok"] and result["completed"], result["problems"]
    assert result["before"]["exit_code"] == 1 and result["after"]["exit_code"] == 0
    assert "CRS008" in result["gone"] and result["new"] == ["BRK099"]
    assert result["stdout_diff"] == ["+rows 4.0", "+sum 8.0", "+rows 6.0", "+sum 12.0"]
