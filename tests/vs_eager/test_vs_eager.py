"""`tdiag run --vs-eager` on real programs: the program runs again with TORCH_COMPILE_DISABLE=1 under the same window,
every output prints the comparison, and RUN003 reports a compiled step slower than eager beyond the spread.

Oracles: the programs under plain python (their stdout, exit code, and their own per-step timing, compiled and with
torch.compile disabled) and what they are built to do (a step broken 20 times by torch._dynamo.graph_break(); a
step that Inductor fuses into one pass; a program that exits 3 when torch.compile compiled nothing).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from outputs_agree import disagreements
from tdiag.analyzer import build
from tdiag.analyzer.eager_compare import NOT_REQUESTED, compare, quartiles, slower_share
from tdiag.analyzer.model import RuntimeSummary
from tdiag_testing import run_tdiag

PROGRAMS = Path(__file__).parent / "programs"


def _plain(program: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PROGRAMS / program), *args], env=env, capture_output=True, text=True,
                          timeout=300)


def _median_us(stderr: str) -> float:
    return float(re.search(r"median step us: ([\d.]+)", stderr).group(1))


def _rendered(name: str, analysis, run_dir: Path) -> str:
    from tdiag.reports.registry import ReportOptions, get_reporter

    out = io.StringIO()
    get_reporter(name).render(analysis, out, ReportOptions(record=str(run_dir), run_dir=run_dir))
    return out.getvalue()


def test_a_break_riddled_step_is_slower_than_eager_and_the_users_run_is_unchanged(tmp_path, session_env):
    plain = _plain("break_riddled_step.py", "5", env=session_env)
    eager = _plain("break_riddled_step.py", "5", env={**session_env, "TORCH_COMPILE_DISABLE": "1"})
    assert plain.returncode == eager.returncode == 5 and plain.stdout == eager.stdout
    # torch itself, timed by the program: 21 Dynamo entries per step cost more than two additions
    assert _median_us(plain.stderr) > 1.5 * _median_us(eager.stderr), (plain.stderr, eager.stderr)

    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "--vs-eager", "-o", str(out), str(PROGRAMS / "break_riddled_step.py"), "5"],
                     session_env)
    assert proc.returncode == 5, proc.stderr[-3000:]  # the program's own status, not the eager run's or tdiag's
    assert proc.stdout == plain.stdout  # the eager run's output is compared, not shown; the user's is untouched
    assert proc.stderr.count("to stderr") == 1 and proc.stderr.count("median step us") == 1

    analysis = build(out)
    assert analysis.summary.graph_breaks == 20  # the program's 20 graph_break() calls, as torch counts them
    # breaks, and results equal to eager's (the plain runs above print the same): never "differs from eager"
    assert not [f for f in analysis.findings if f.code.startswith("EGR")]
    vs = analysis.summary.vs_eager
    assert vs.status == "measured" and vs.verdict == "slower", (vs.line, vs.detail)
    assert vs.eager_exit_codes == [5] and vs.eager_runs == 1 and (out / "eager" / "events.jsonl").exists()
    assert len(vs.compiled_step_times_s) == len(vs.eager_step_times_s) == 20  # the default window: 20 steps a side
    assert vs.compiled_step_s > 1.5 * vs.eager_step_s and vs.slower_share >= 0.9
    assert re.match(r"vs eager: compiled [\d.]+ ms/step, eager [\d.]+ ms/step: compiled [\d.]+x slower than eager$",
                    vs.line)

    (run003,) = [f for f in analysis.findings if f.code == "RUN003"]
    # the step function's first line as Python counts it (co_firstlineno: its decorator)
    def_line = (PROGRAMS / "break_riddled_step.py").read_text().splitlines().index('@torch.compile(backend="eager")') + 1
    assert (run003.path, run003.line, run003.severity) == ("break_riddled_step.py", def_line, "warning")
    assert "slower than eager" in run003.message and "step pairs" in run003.message
    assert "graph breaks" in run003.fix  # the cause: the time between and around the 21 graphs

    # every output prints the same line, and the finding agrees across outputs
    assert disagreements(out, proc.stderr) == []
    assert vs.line in " ".join(proc.stderr.split())
    for name in ("lint-concise", "lint-full", "html", "json"):
        assert vs.line in _rendered(name, analysis, out), name
    from tdiag.reports.notebook.render import to_html
    from tdiag.tui.screens.overview import vs_eager_line

    assert vs.line in to_html(analysis) and vs_eager_line(analysis).plain.startswith(vs.line)

    # the compiled window's per-step times are its steps: they add up to the window
    (runtime,) = [e for e in _events(out / "events.jsonl") if e.get("type") == "runtime"]
    assert len(runtime["step_us"]) == runtime["steps"] == 20
    assert abs(sum(runtime["step_us"]) - runtime["window_us"]) <= 0.01 * runtime["window_us"] + 50


@pytest.mark.inductor
def test_a_step_inductor_fuses_is_not_slower_than_eager(tmp_path, session_env):
    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "-q", "--vs-eager", "-o", str(out), str(PROGRAMS / "fused_step.py")],
                     session_env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == _plain("fused_step.py", env=session_env).stdout
    analysis = build(out)
    vs = analysis.summary.vs_eager
    # 16 passes over 4 MB eagerly, one fused pass compiled
    assert vs.status == "measured" and vs.verdict != "slower" and vs.speedup > 1, (vs.line, vs.detail)
    assert not [f for f in analysis.findings if f.code == "RUN003"]
    # a clean program: Inductor's results within the printed digits of eager's, never "differs from eager"
    eager = _plain("fused_step.py", env={**session_env, "TORCH_COMPILE_DISABLE": "1"})
    assert eager.stdout.split()[0] == proc.stdout.split()[0] == "checksum"
    assert not [f for f in analysis.findings if f.code.startswith("EGR")]


def test_without_the_flag_the_summary_says_it_did_not_compare_and_no_findings(tmp_path, session_env):
    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "-o", str(out), str(PROGRAMS / "exits_differently.py")], session_env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    analysis = build(out)
    assert analysis.findings == [] and analysis.summary.runtime.status == "measured"
    assert analysis.summary.vs_eager.status == "not_requested" and analysis.summary.vs_eager.line == NOT_REQUESTED
    summary = " ".join(proc.stderr.split())
    assert NOT_REQUESTED in summary and "nothing to fix" in summary
    assert _rendered("lint-concise", analysis, out).endswith(f"All checks passed: no findings.\n{NOT_REQUESTED}\n")
    assert not (out / "eager").exists()


def test_an_eager_run_that_exits_differently_is_not_compared(tmp_path, session_env):
    out = tmp_path / "run"
    proc = run_tdiag(["run", "--no-tui", "--vs-eager", "-o", str(out), str(PROGRAMS / "exits_differently.py")],
                     session_env)
    assert proc.returncode == 0, proc.stderr[-3000:]  # the eager run's exit 3 never becomes tdiag run's
    assert proc.stdout == _plain("exits_differently.py", env=session_env).stdout
    vs = build(out).summary.vs_eager
    assert vs.status == "not_measured" and vs.eager_exit_codes == [3]
    assert vs.line.startswith("not compared with eager: the program exits 3 with torch.compile disabled (compiled: 0)")
    assert vs.line in " ".join(proc.stderr.split())


def test_vs_eager_needs_the_window(tmp_path, session_env):
    proc = run_tdiag(["run", "--no-tui", "--vs-eager", "--no-profile", "-o", str(tmp_path / "r"),
                      str(PROGRAMS / "exits_differently.py")], session_env)
    assert proc.returncode == 2 and "--no-profile" in proc.stderr and proc.stdout == ""


class _Log:
    """An event log as the analyzer reads it (EventLog's ``other`` and ``exits``)."""

    def __init__(self, compiled_us: list[int], eager_us: list[list[int]], eager_exit: int = 0):
        self.other = [{"type": "runtime", "status": "measured", "steps": len(compiled_us), "rank": None,
                       "step_us": compiled_us, "window_us": sum(compiled_us)},
                      {"type": "eager_baseline", "rank": None, "runs": [
                          {"status": "measured", "exit_code": eager_exit, "step_us": us} for us in eager_us]}]
        self.exits = {None: {"code": 0}}


def _compared(compiled_us, *eager_us, eager_exit=0):
    runtime = RuntimeSummary(status="measured", steps=len(compiled_us), window_s=sum(compiled_us) * 1e-6,
                             compiled_s=sum(compiled_us) * 1e-6)
    return compare(_Log(compiled_us, list(eager_us), eager_exit), runtime)


def test_the_verdict_is_decided_by_the_per_step_spread():
    steady = [100, 104, 98, 101, 99, 103, 97, 102, 100, 105, 96, 101]
    # compiled steps about twice as long: apart beyond the spread
    assert _compared([2 * v for v in steady], steady).verdict == "slower"
    assert _compared(steady, [2 * v for v in steady]).verdict == "faster"
    # 8% apart: within the tolerance between the ranges, no verdict
    assert _compared([int(v * 1.08) for v in steady], steady).verdict == "within"
    # one side's steps spread over both: the ranges overlap, no verdict however the medians lie
    wide = [60, 250, 80, 230, 90, 210, 120, 200, 70, 260, 110, 240]
    assert _compared(wide, steady).verdict == "within"
    # too few steps a side to judge
    short = _compared([2 * v for v in steady[:6]], steady[:6])
    assert short.verdict == "within" and "not judged" in short.line
    # pooled over two eager runs
    two = _compared([2 * v for v in steady], steady, steady)
    assert two.verdict == "slower" and two.eager_runs == 2 and "one eager run" not in two.detail


def test_spread_helpers():
    assert quartiles([1, 2, 3, 4, 5]) == (2, 3, 4)
    assert slower_share([2, 2], [1, 2, 3]) == 0.5  # each beats 1, ties 2 (half), loses to 3
    assert slower_share([5], [1, 2]) == 1.0


def test_an_eager_side_that_exits_differently_or_measured_nothing_is_not_compared():
    steady = [100] * 12
    assert _compared(steady, steady, eager_exit=1).status == "not_measured"
    log = _Log(steady, [])
    log.other[1]["runs"] = [{"status": "not_measured", "exit_code": 0, "reason": "program ended after 1 steps"}]
    vs = compare(log, RuntimeSummary(status="measured", steps=12, window_s=1.2e-3))
    assert vs.status == "not_measured" and "program ended after 1 steps" in vs.line


def _events(path: Path) -> list[dict]:
    import json

    return [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]
