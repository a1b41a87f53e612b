"""Which callable is the step, short runs, and the eager time the first window left unattributed (issue 22).

Real `tdiag run` of real programs; expectations come from what the programs do and the window's documented rule
(step 1 compiles, 2 quiet steps settle, the window opens at step 4's start and each later step start closes one
measured step): a 6-step run measures 2 steps, a 9-step run 5.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag_testing import run_tdiag

PROGRAMS = Path(__file__).parent / "programs"


def _record(tmp: Path, env: dict[str, str], program: str, *args: str):
    out = tmp / (Path(program).stem + "-".join(("", *args)))
    proc = run_tdiag(["run", "--no-tui", "-o", str(out), str(PROGRAMS / program), *args], env)
    assert proc.returncode == 0, proc.stderr
    return build(out), proc.stdout + proc.stderr  # the summary goes to stderr


@pytest.fixture(scope="module")
def setup_then_loop(tmp_path_factory, session_env):
    return _record(tmp_path_factory.mktemp("setup"), session_env, "setup_then_loop.py", "400")


def test_setup_then_loop_measures_the_loop_and_ranks_its_break_first(setup_then_loop):
    analysis, _ = setup_then_loop
    runtime = analysis.summary.runtime
    assert runtime.status == "measured" and not runtime.partial
    assert runtime.step_function == "loop"
    breaks = [f for f in analysis.findings if f.family == "BRK"]
    hot = next(f for f in breaks if f.function == "loop")
    # first of the findings at a line (a RUN finding, if the step's own eager time is large, is about the whole step)
    assert [f for f in analysis.findings if f.family != "RUN"][0] is hot
    assert hot.cost.basis == "measured" and hot.cost.total_s > 0
    cold = next(f for f in breaks if f.function == "setup")
    assert cold.cost.total_s == 0  # it ran once, before the window


def test_the_chosen_step_is_reported(setup_then_loop):
    analysis, stdout = setup_then_loop
    runtime = analysis.summary.runtime
    assert "setup" in runtime.step_reason and "repeats" in runtime.step_reason
    assert "step: loop() (setup_then_loop.py:19)" in " ".join(stdout.split())


@pytest.mark.parametrize("steps, measured", [(6, 2), (9, 5)])
def test_short_runs_get_a_partial_window_labelled_with_its_steps(tmp_path, session_env, steps, measured):
    analysis, stdout = _record(tmp_path, session_env, "hot_loop_break.py", str(steps))
    runtime = analysis.summary.runtime
    assert runtime.status == "measured" and runtime.partial
    assert runtime.steps == measured and runtime.planned_steps == 20
    hot = next(f for f in analysis.findings if f.family == "BRK" and f.function == "hot")
    assert hot.cost.basis == "measured" and hot.cost.total_s > 0
    # per step over the steps it holds: never scaled up to the 20 planned
    assert hot.cost.per_call_ms == pytest.approx(hot.cost.total_s / measured * 1e3, rel=1e-3)
    assert f"partial window: the program ended {measured} of 20 steps into it" in " ".join(stdout.split())


def test_skipped_and_fallback_frames_carry_measured_eager_time(tmp_path, session_env):
    # skipped() and limited() run the same 150 eager ops a step; cheap() is one compiled op
    analysis, _ = _record(tmp_path, session_env, "eager_fallbacks.py", "14")
    assert analysis.summary.runtime.status == "measured"
    skipped = next(f for f in analysis.findings if f.code == "BRK006")
    limited = next(f for f in analysis.findings if f.code == "RCP005")
    for f in (skipped, limited):
        assert f.cost.basis == "measured"
        assert f.cost.share > 0.15  # each is about half of the step; sampled, so only a loose bound
    assert 0.33 < skipped.cost.total_s / limited.cost.total_s < 3


def test_an_eager_optimizer_step_is_a_finding_with_the_optimizer_fix(tmp_path, session_env):
    analysis, _ = _record(tmp_path, session_env, "eager_optimizer.py", "10")
    (run001,) = [f for f in analysis.findings if f.code == "RUN001"]
    assert run001.cost.basis == "measured" and run001.cost.share > 0.25
    parts = run001.evidence.parts_ms_per_step
    assert max(parts, key=parts.get) == "optimizer"
    # the CPU's fix: foreach first, the compiled step by torch's recipe; never fused=True first (measured, issue 41)
    assert "foreach=True" in run001.fix and "calls opt.step()" in run001.fix and "fused" not in run001.fix
    assert analysis.summary.runtime.step_function == "Sequential.forward"
    # Sequential.forward is torch's code: the finding goes on the user's line that calls the compiled model, with
    # torch's frame kept beside it
    source = (Path(__file__).parent / "programs" / "eager_optimizer.py").read_text().splitlines()
    assert run001.path.endswith("eager_optimizer.py") and source[run001.line - 1].strip() == "loss = compiled(x).sum()"
    assert run001.library_frame is not None and "torch" in run001.library_frame.path
