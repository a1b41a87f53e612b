"""`tdiag fix --verify`'s re-runs time steady steps even when the program calls its step only a few times.

A step-time patch is judged by the re-runs' step time. `tdiag run` profiles a window of steps, then times as many
again with the profiler gone (the steady steps, the program's own speed). A program that calls its step 24 times (GPT-2)
spends them all in the default 20-step window: no steady step, and the verdict read the profiled window (on an H100
the profiler doubled GPT-2's few-millisecond step). The re-runs now give the steady phase the steps a verdict needs
and the window the rest (an even split left GPT-2 nine steady steps on an H100: "not judged", and its CUDA graphs,
twice as fast, were never kept).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from tdiag.analyzer import build
from tdiag.tracer.runtime_window import WindowSpec, parse_window

from tdiag.fixing.compare import MIN_STEPS_TO_JUDGE, Metrics
from tdiag.fixing.recorded import recorded_run
from tdiag.fixing.rerun_window import MIN_WINDOW_STEPS, rerun_window, window_for
from tdiag.fixing.verify import Scratch

TWENTY_FOUR_STEPS = textwrap.dedent("""\
    import torch


    @torch.compile(backend="eager")
    def step(x):
        return (x * 2).sin().sum()


    for i in range(24):
        print(round(step(torch.ones(64)).item(), 4))
""")


def _record(tmp_path, env, *options):
    (tmp_path / "loop.py").write_text(TWENTY_FOUR_STEPS)
    out = tmp_path / ("record" + "".join(options).replace("-", ""))
    subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(out), *options, "loop.py"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    return out


def test_a_short_program_is_re_run_with_the_steady_steps_a_verdict_needs(tmp_path, session_env):
    record = _record(tmp_path, session_env)
    runtime = build(str(record)).summary.runtime
    # torch's default window took every step after settling: nothing was left to time unobserved
    assert runtime.status == "measured" and runtime.steady_steps == 0
    window = rerun_window(record)
    assert window is not None
    spec = parse_window(window)
    assert spec.steps >= MIN_WINDOW_STEPS and spec.steady_steps >= MIN_STEPS_TO_JUDGE
    run = recorded_run(str(record), build(str(record)).sources)
    with Scratch(run) as scratch:
        assert scratch.window == window
        result = scratch.rerun("before", scratch.copy("before", {}), dict(session_env), 300)
        rerun = build(str(result.record_dir))
    again = rerun.summary.runtime
    assert again.steps == spec.steps and again.steady_steps >= MIN_STEPS_TO_JUDGE
    assert again.step_s == again.steady_step_s  # the step time the verdicts read is the unobserved one
    # and the verdicts take it: the run's step time counts as a judged one
    assert Metrics.of_runs([(rerun, result)]).step_times_s == [again.steady_step_s]


def test_the_steady_steps_come_first_then_the_window_then_an_even_split():
    # GPT-2 on an H100: 18 calls after settling, the window held them all
    def split(calls, default):
        spec = window_for(calls, default)
        return spec and (parse_window(spec).steps, min(parse_window(spec).steady_steps, calls - parse_window(spec).steps))

    assert split(18, 18) == (4, 14)  # a verdict, and four steps to spare for a version that settles later
    assert split(14, 14) == (3, 11)  # the window's least
    assert split(12, 12) == (6, 6)  # too few for a verdict either way: the findings keep half
    assert split(4, 4) is None  # a window of 2 would say nothing
    assert split(40, 20) is None  # 20 calls after the default window: it stays


def test_the_steady_phase_has_its_own_length():
    assert parse_window("6:::12") == WindowSpec(6, WindowSpec.settle, WindowSpec.seconds, 12)
    assert parse_window("6").steady_steps == 6  # as many as the window's, as before
    with pytest.raises(ValueError, match="STEADY"):
        parse_window("6:::-1")


def test_a_program_whose_window_left_steady_steps_keeps_the_default(tmp_path, session_env):
    record = _record(tmp_path, session_env, "--profile-window", "5")
    assert build(str(record)).summary.runtime.steady_steps == 5
    assert rerun_window(record) is None
