"""A stage of the analysis pipeline that raises costs only what depends on it, and every output says so; a record that
cannot support an all-clear never gives one (issue 43).

One real measured record (tests/faults/programs/measured_branch.py under `tdiag run`: a data-dependent branch, a
batch size that changes once, 40 steps, its runtime window measured) is made once per session. Each stage of
analyzer/stages.py is made to raise in turn (its own function replaced inside this test process: tdiag's fault
injection, not a mock of torch): lint exits 2 naming the stage, every finding the stage did not produce stays, and the
console summary, lint formats, SARIF, JSON, HTML, notebook view and the TUI say "analysis incomplete: STAGE failed".
Without the change, a failed kernels/cost/runtime stage left lint at exit 1 with no word, and eager_compare's fault
was an internal error with nothing printed.

Then records that cannot support an all-clear, each made for real: a run interrupted by SIGINT during its first
compile, that record's twin cut to 3 lines and one with a garbage line, and a program that dies on its own argument
parsing before compiling: lint exits 2 naming the cause, and `tdiag diff GOOD INTERRUPTED` calls the finding the
interrupted run never reached "unknown", never "fixed", and exits 2.
"""

from __future__ import annotations

import importlib
import json
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from tdiag.analyzer import build, stages
from tdiag_testing import PROGRAMS, TESTS, tdiag_cmd

from tdiag import cli

PROGRAM = TESTS / "faults" / "programs" / "measured_branch.py"
# stages without whose facts no finding can exist: the graphs every rule reads, the rules themselves
NO_FINDINGS_WITHOUT = {"graphs", "rules"}


class Boom(RuntimeError):
    """The injected fault."""


def _raise(*args, **kwargs):
    raise Boom("injected fault")


@pytest.fixture(autouse=True)
def tracebacks_in_tmp(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture(scope="module")
def good(recorded) -> Path:
    run_dir, proc = recorded(str(PROGRAM), "--steps", "40")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return run_dir


@pytest.fixture(scope="module")
def baseline(good):
    analysis = build(good)
    assert not analysis.run.analysis_problems
    assert analysis.summary.runtime.status == "measured"  # the runtime, cost and vs_eager stages have work to do
    codes = {f.code for f in analysis.findings}
    assert {"BRK001", "RCP001"} <= codes, codes  # the branch and the batch size: both in the user's file
    return analysis


def _key(f) -> tuple:
    return (f.code, f.path, f.line)


def _break(stage: stages.Stage, monkeypatch) -> None:
    module, _, function = stage.call.partition(":")
    monkeypatch.setattr(importlib.import_module(module), function, _raise)


def _outputs(analysis, record: Path) -> dict[str, str]:
    import html
    import io

    from fixtures.analysis_factory import PLOTLY_STUB
    from rich.console import Console
    from tdiag.reports.console import print_summary
    from tdiag.reports.html.render import render as render_html
    from tdiag.reports.lint import render as render_lint
    from tdiag.reports.lint.options import LintOptions
    from tdiag.reports.notebook.render import to_html
    from tdiag.tui.screens.overview import record_problems

    console = io.StringIO()
    print_summary(analysis, record, console, width=200, force_terminal=False)
    tui = Console(file=io.StringIO(), width=200, record=True)
    tui.print(record_problems(analysis))
    out = {"console": console.getvalue(), "html": html.unescape(render_html(analysis, plotly_bundle=PLOTLY_STUB)),
           "notebook": html.unescape(to_html(analysis)), "tui overview": tui.export_text()}
    for fmt in ("full", "concise", "github", "sarif"):  # json: findings only (ruff's shape); stderr says it
        out[f"lint-{fmt}"] = render_lint(analysis, fmt, LintOptions(record=str(record)))
    return out


@pytest.mark.parametrize("name", [s.name for s in stages.STAGES])
def test_a_stage_that_raises_is_named_everywhere_and_costs_only_what_needs_it(name, good, baseline, monkeypatch,
                                                                            capsys):
    stage = stages.stage_named(name)
    _break(stage, monkeypatch)
    analysis = build(good)
    (problem,) = analysis.run.analysis_problems
    assert (problem.part, problem.name, problem.exception) == ("stage", name, "Boom")
    assert "Boom: injected fault" in Path(problem.traceback_file).read_text()
    # the stages that need its facts are skipped and named; the others ran
    missing = {name}
    for later in stages.STAGES:
        if set(later.needs) & missing:
            missing.add(later.name)
    assert problem.skipped == [s.name for s in stages.STAGES if s.name in missing - {name}]
    # every finding the stage did not produce stays
    expected = set() if name in NO_FINDINGS_WITHOUT else {_key(f) for f in baseline.findings}
    assert {_key(f) for f in analysis.findings} == expected
    if name == "runtime":  # costs where they exist: compile costs stand without the measured window
        (rcp,) = [f for f in analysis.findings if f.code == "RCP001"]
        assert rcp.cost is not None and rcp.cost.basis == "compile"
        assert analysis.summary.runtime is None
    text = f"analysis incomplete: {name} failed: Boom: injected fault"
    for output, rendered in _outputs(analysis, good).items():
        assert text in rendered, f"{output} does not say {text!r}"
        assert "All checks passed" not in rendered
    assert cli.main(["report", str(good), "--format", "json", "--no-code"]) == 0
    (exported,) = json.loads(capsys.readouterr().out)["run"]["analysis_problems"]
    assert (exported["part"], exported["name"], exported["skipped"]) == ("stage", name, problem.skipped)
    assert cli.main(["lint", str(good)]) == 2
    captured = capsys.readouterr()
    assert text in captured.err and "All checks passed" not in captured.out
    for finding in expected:  # lint still lists what stands
        assert f"{finding[1]}:{finding[2]}:" in captured.out and finding[0] in captured.out
    assert cli.main(["diff", str(good), str(good)]) == 2
    assert text in capsys.readouterr().err


def test_the_tui_names_the_failed_stage(good, monkeypatch):
    import asyncio
    import html
    import re

    from tdiag.tui import make_app

    def screen_text(app) -> str:  # as tests/tui/shared_app.py reads the screen
        pieces = re.findall(r"<text[^>]*>([^<]*)</text>", app.export_screenshot())
        return html.unescape("".join(pieces)).replace("\xa0", " ")

    _break(stages.stage_named("kernels"), monkeypatch)
    analysis = build(good)

    async def look() -> str:
        app = make_app(analysis)
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.pause()
            overview = screen_text(app)
            await pilot.press("2")  # the findings that stand are listed
            await pilot.pause()
            return overview + screen_text(app)

    shown = asyncio.run(look())
    assert "analysis incomplete: kernels failed" in shown
    assert "BRK001" in shown and "RCP001" in shown


def test_the_stage_table_is_in_order():
    stages.check_table()
    with pytest.raises(ValueError, match="reads later"):
        stages.check_table((stages.Stage("a", "m:f", "x", needs=("later",)), stages.Stage("later", "m:g", "y")))


# -- records that cannot support an all-clear ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def interrupted(tmp_path_factory, session_env) -> Path:
    """SIGINT to `tdiag run` while Dynamo is in the program's first compile (its backend announced itself)."""
    out = tmp_path_factory.mktemp("interrupted") / "run"
    proc = subprocess.Popen(tdiag_cmd("run", "--no-tui", "-q", "-o", str(out), str(PROGRAM), "--steps", "40",
                                      "--slow-backend"),
                            # the folder `good` was run from (RecordedRuns): the same project root, the same paths
                            cwd=PROGRAMS, env=session_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.strip() == "compiling":
            proc.send_signal(signal.SIGINT)
            break
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (130, -signal.SIGINT), err[-2000:]  # as plain python exits on Ctrl-C
    assert "KeyboardInterrupt" in err
    return out


def _lint(record: Path, capsys) -> tuple[int, str, str]:
    code = cli.main(["lint", str(record)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_interrupted_during_the_first_compile(interrupted, capsys):
    code, out, err = _lint(interrupted, capsys)
    assert code == 2
    cause = "the run was interrupted (Ctrl-C) during the first compile: findings after that point are unknown"
    assert cause in err and cause in out
    assert "All checks passed" not in out


def test_diff_good_interrupted_is_unknown_not_fixed(good, baseline, interrupted, capsys):
    assert cli.main(["diff", str(good), str(interrupted)]) == 2
    captured = capsys.readouterr()
    assert "fixed (0):" in captured.out and "unknown (" in captured.out
    assert "interrupted (Ctrl-C)" in captured.err
    assert cli.main(["diff", str(good), str(interrupted), "--format", "json"]) == 2
    result = json.loads(capsys.readouterr().out)
    assert result["fixed"] == []
    unknown = {(u["code"], u["line"]) for u in result["unknown"]}
    present = {(f.code, f.line) for f in build(interrupted).findings}
    assert unknown == {(f.code, f.line) for f in baseline.findings} - present  # the recompile it never reached
    assert ("RCP001", next(f.line for f in baseline.findings if f.code == "RCP001")) in unknown


def _damaged(good: Path, tmp_path: Path, edit) -> Path:
    lines = (good / "events.jsonl").read_text().splitlines(keepends=True)
    out = tmp_path / "damaged"
    out.mkdir()
    (out / "events.jsonl").write_text("".join(edit(lines)))
    return out


def test_a_record_cut_to_three_lines(good, tmp_path, capsys):
    code, out, err = _lint(_damaged(good, tmp_path, lambda lines: lines[:3]), capsys)
    assert code == 2
    assert "the record ends before the program did" in err and "All checks passed" not in out


def test_a_record_with_a_garbage_line(good, tmp_path, capsys):
    code, out, err = _lint(_damaged(good, tmp_path, lambda lines: [*lines[:5], "garbage {\n", *lines[5:]]), capsys)
    assert code == 2
    assert "events.jsonl:6: not a record event, skipped" in err


def test_a_program_that_died_before_compiling(recorded, capsys):
    run_dir, proc = recorded(str(PROGRAM))  # no --steps: argparse exits 2, as under plain python
    assert proc.returncode == 2 and "the following arguments are required: --steps" in proc.stderr
    code, out, err = _lint(run_dir, capsys)
    assert code == 2
    assert "the program exited with code 2 before anything was compiled" in err
    assert "All checks passed" not in out


def test_a_complete_record_is_not_flagged(good, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(good, copy)
    code, out, err = _lint(copy, capsys)
    assert code == 1 and err == ""


@pytest.mark.browser
def test_the_html_report_names_the_failed_stage_in_a_browser(browser, good, baseline, monkeypatch, tmp_path):
    from tdiag.reports.html import write_html

    _break(stages.stage_named("cost"), monkeypatch)
    path = tmp_path / "report.html"
    write_html(build(good), path)
    page = browser.new_page()
    page.goto(path.as_uri())
    page.wait_for_function("() => ['findings', 'charts'].includes(document.documentElement.dataset.ready)")
    alert = page.locator(".capture-incomplete")
    assert alert.is_visible() and "analysis incomplete: cost failed" in alert.inner_text()
    shown = page.inner_text("body")
    for f in baseline.findings:  # the findings stand, without their costs
        assert f"{f.path}:{f.line}" in shown
