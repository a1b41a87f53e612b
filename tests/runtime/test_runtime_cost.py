"""Measured cost (issue 11): a real `tdiag run` of real torch.compile programs, the window measured by torch.profiler.

Expectations are written by hand from what the programs do (a break called 50 times a step against one called once;
shapes that change every step), never copied from the output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.tracer.runtime_window import WindowSpec, parse_window
from tdiag_testing import run_tdiag

HERE = Path(__file__).parent / "programs"


def _run(tmp_path: Path, env: dict[str, str], program: str, *args: str, options: tuple[str, ...] = ()) -> Path:
    out = tmp_path / Path(program).stem
    proc = run_tdiag(["run", "--no-tui", "-q", *options, "-o", str(out), str(HERE / program), *args], env)
    assert proc.returncode == 0, proc.stderr
    return out


def _runtime_events(run_dir: Path) -> list[dict]:
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("type") == "runtime"]


@pytest.fixture(scope="module")
def hot_loop_dir(hot_loop_record):
    """The session's one measured run of hot_loop_break.py (30 steps: the 2 settle and 20 measured steps of the
    default window fit), shared with the TUI, HTML, contract and fault tests instead of a second run of its own."""
    return hot_loop_record


@pytest.fixture(scope="module")
def hot_loop(hot_loop_dir):
    return build(hot_loop_dir)


@pytest.fixture(scope="module")
def unprofiled_dir(tmp_path_factory, session_env):
    """The same program with the measured window turned off: one run for the module's two tests (read only)."""
    return _run(tmp_path_factory.mktemp("off"), session_env, "hot_loop_break.py", "12", options=("--no-profile",))


def test_hot_loop_break_costs_more_and_ranks_first(hot_loop):
    breaks = [f for f in hot_loop.findings if f.family == "BRK"]
    hot = next(f for f in breaks if f.function == "hot")
    once = next(f for f in breaks if f.function == "once")
    assert hot.cost.basis == once.cost.basis == "measured"
    # 50 breaks a step against 1: far more than 10x, whatever the machine's noise
    assert hot.cost.total_s > 10 * once.cost.total_s > 0
    assert hot_loop.findings.index(hot) < hot_loop.findings.index(once)
    # first of the findings at a line: RUN001 (the step's Python loop around 51 compiled calls, outside compiled code)
    # is about the whole step and may cost more
    assert [f for f in hot_loop.findings if f.family != "RUN"][0] is hot
    runtime = hot_loop.summary.runtime
    assert runtime.status == "measured" and runtime.steps == WindowSpec().steps
    assert hot.cost.per_call_ms == pytest.approx(hot.cost.total_s / runtime.steps * 1e3, rel=1e-3)
    assert hot.cost.share == pytest.approx(hot.cost.total_s / runtime.window_s, abs=1e-3)


def test_graph_runtime_counts_calls(hot_loop):
    # `once` (frame 0) runs once per step, `hot` 50 times: Dynamo's region labels counted by the profiler
    by_name = {g.code_name: g for g in hot_loop.graphs}
    steps = hot_loop.summary.runtime.steps
    assert by_name["once"].runtime.calls == steps
    assert by_name["hot"].runtime.calls == 50 * steps
    assert by_name["hot"].runtime.host_s > 0


def test_window_reconciles(hot_loop):
    r = hot_loop.summary.runtime
    parts = r.compiled_s + r.attributed_s + r.unattributed_s + r.guard_s + r.compile_s
    assert parts == pytest.approx(r.window_s, rel=0.10)
    # the breaks' eager parts are the attributed eager time; their costs also hold their resume graphs' call overhead
    # (inside "compiled"), so they are at least that
    assert 0 < r.attributed_s <= sum(f.cost.total_s for f in hot_loop.findings if f.cost and f.family == "BRK") + 1e-6


def test_no_stack_sampling_without_an_eagerly_run_frame(hot_loop_dir):
    """The sampler thread takes the GIL every 0.5 ms; hot_loop_break.py's frames all compile (breaks, no skipped frame
    and no recompile limit), so its window is measured without it (eager_fallbacks.py, which has both, with it:
    tests/runtime/test_window_step.py)."""
    (event,) = [e for e in _runtime_events(hot_loop_dir) if e.get("status") == "measured"]
    assert event.get("samples") is None


def test_too_short_program_says_not_measured(tmp_path, session_env):
    run_dir = _run(tmp_path, session_env, "hot_loop_break.py", "3")
    (event,) = _runtime_events(run_dir)
    assert event["status"] == "not_measured"
    assert "program ended after 3 steps" in event["reason"]
    a = build(run_dir)
    assert a.summary.runtime.status == "not_measured"
    assert all(f.cost is None or f.cost.basis != "measured" for f in a.findings)


def test_window_controls(tmp_path, session_env, unprofiled_dir):
    run_dir = _run(tmp_path, session_env, "hot_loop_break.py", "12", options=("--profile-window", "5:1"))
    (event,) = _runtime_events(run_dir)
    assert event["status"] == "measured" and event["steps"] == 5 and event["settle"] == 1
    off = unprofiled_dir
    assert _runtime_events(off) == []
    a = build(off)
    assert a.summary.runtime is None and all(f.cost is None for f in a.findings)


def test_recompile_storm_is_compile_time_never_per_step(tmp_path, session_env):
    """Compiles inside the window are in its partition (compile_s), and the recompile finding costs its compile
    seconds: never a per-step figure (issue 44: one-off compile time read as "23.3 ms/step")."""
    run_dir = _run(tmp_path, session_env, "recompile_storm.py", options=("--profile-window", "10:3:30"))
    a = build(run_dir)
    r = a.summary.runtime
    assert r.status == "measured" and r.compile_s > 0
    recompile = [f for f in a.findings if f.family == "RCP"]
    assert recompile and recompile[0].cost.basis == "compile" and recompile[0].cost.total_s > 0
    assert recompile[0].cost.per_call_ms is None
    assert [f for f in a.findings if f.family != "RUN"][0].family == "RCP"


def test_parse_window():
    assert parse_window("7") == WindowSpec(7, WindowSpec.settle, WindowSpec.seconds)
    assert parse_window("7:0:1.5") == WindowSpec(7, 0, 1.5)
    for bad in ("0", "x", "5:-1", "1:2:3:4:5", "1:2:3:-4", "5:1:0"):
        with pytest.raises(ValueError):
            parse_window(bad)


def test_lint_json_and_sarif_carry_cost(hot_loop):
    from tdiag.reports.lint import sarif
    from tdiag.reports.lint.options import LintOptions
    from tdiag.reports.lint.records import finding_record

    hot = next(f for f in hot_loop.findings if f.function == "hot")
    record = finding_record(hot_loop, hot)
    assert record["cost"]["basis"] == "measured" and record["cost"]["total_s"] == hot.cost.total_s
    doc = json.loads(sarif.render(hot_loop, LintOptions()))
    costs = [r["properties"].get("cost") for r in doc["runs"][0]["results"]]
    assert {"totalS": hot.cost.total_s, "perCallMs": hot.cost.per_call_ms, "share": hot.cost.share, "basis": "measured",
            "lowerBound": True, "caveat": hot.cost.caveat} in costs


def test_a_break_cost_says_it_is_a_lower_bound(hot_loop):
    """docs/cost-vs-saving.md: removing a break saved 4x-40x its measured cost (the split backward, the forward piece
    before it, guards, lost fusion). Every break cost says so; the summary marks it and says what it leaves out."""
    import io

    from tdiag.reports.console import print_summary

    breaks = [f for f in hot_loop.findings if f.family == "BRK" and f.cost.basis == "measured"]
    assert breaks and all(f.cost.lower_bound and "guards" in f.cost.caveat for f in breaks)
    # an inference run under the eager backend: no backward to split, no Inductor fusion to lose (issue 47)
    assert not any("backward" in f.cost.caveat or "fusion" in f.cost.caveat for f in breaks)
    assert not any(f.cost.lower_bound for f in hot_loop.findings if f.family != "BRK")
    out = io.StringIO()
    print_summary(hot_loop, None, out, width=120, force_terminal=False)
    text = out.getvalue()
    hot_row = next(line for line in text.splitlines() if f":{hot_finding_line(hot_loop)}" in line and "BRK" in line)
    assert re.search(r"≥[\d.]+ ms/step", hot_row)
    assert "≥ a lower bound on what removing the break saves" in text
    assert text.count("≥ a lower bound") == 1  # one footnote for the table, not one per row


def hot_finding_line(analysis) -> int:
    return next(f.line for f in analysis.findings if f.function == "hot")


def test_diff_shows_cost_and_step_time_deltas(hot_loop_dir, tmp_path, session_env):
    # the same program with the hot loop cut from 50 to 5 calls a step: that break's cost per step falls about 10x
    fewer = _run(tmp_path, session_env, "hot_loop_break.py", "30", "5")  # as many steps as the base
    proc = run_tdiag(["diff", "--format", "json", str(hot_loop_dir), str(fewer)], session_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # timing alone is never a regression
    data = json.loads(proc.stdout)
    (hot,) = [u for u in data["unchanged"] if u["code"].startswith("BRK") and u["function"] == "hot"]
    cost = hot["cost"]
    assert cost["unit"] == "ms/step" and cost["base"]["basis"] == cost["new"]["basis"] == "measured"
    # each side is that run's own measured cost (the per-finding direction is left alone: one profiler hiccup of
    # tens of ms on this shared machine outweighs 45 calls of a tiny break; the step time below is robust to it)
    for side, run_dir in (("base", hot_loop_dir), ("new", fewer)):
        own = next(f for f in build(run_dir).findings if f.family == "BRK" and f.function == "hot").cost
        assert cost[side]["per_call_ms"] == own.per_call_ms and cost[side]["total_s"] == own.total_s
    assert cost["change"] == pytest.approx(cost["new"]["per_call_ms"] - cost["base"]["per_call_ms"], abs=1e-3)
    runtime = data["runtime"]
    assert runtime["unit"] == "ms/step" and runtime["new"]["step"] < runtime["base"]["step"]
    assert runtime["change"]["step"] == pytest.approx(runtime["new"]["step"] - runtime["base"]["step"], abs=1e-3)
    text = run_tdiag(["diff", str(hot_loop_dir), str(fewer)], session_env).stdout
    assert "time per step (measured window): " in text
    hot_line = next(line for line in text.splitlines() if "hot_loop_break.py:22: BRK" in line)
    assert re.search(r"\[cost ≥[\d.e-]+ ms/step \(\d+%\) -> ≥[\d.e-]+ ms/step \(\d+%\), [-+][\d.e-]+ ms/step\]$", hot_line), hot_line


def test_diff_against_a_record_without_runtime(hot_loop_dir, unprofiled_dir, session_env):
    off = unprofiled_dir
    data = json.loads(run_tdiag(["diff", "--format", "json", str(off), str(hot_loop_dir)], session_env).stdout)
    assert data["runtime"]["base"] is None and data["runtime"]["base_reason"] == "no runtime data in the record"
    assert data["runtime"]["new"]["step"] > 0 and data["runtime"]["change"] is None


def test_forked_child_never_starts_the_profiler(tmp_path, session_env):
    out = tmp_path / "fork"
    proc = run_tdiag(["run", "--no-tui", "-q", "-o", str(out), str(HERE / "fork_while_settling.py")], session_env)
    assert proc.returncode == 0, proc.stderr
    assert "child profiler on: False" in proc.stdout and "parent done" in proc.stdout
    (runtime,) = _runtime_events(out)  # one window, the parent's
    assert runtime["status"] == "measured", runtime
