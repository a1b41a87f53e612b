"""`tdiag fix --verify`'s re-runs time steady steps even when the program calls its step only a few times.

A step-time patch is judged by the re-runs' step time. `tdiag run` profiles a window of steps, then times as many
again with the profiler gone (the steady steps, the program's own speed). A program that calls its step 16 times
spends them all in the default 20-step window: no steady step, and the verdict read the profiled window (on an H100
the profiler doubled GPT-2's few-millisecond step). The re-runs now split the steps after settling in two.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tdiag.analyzer import build

from tdiag.fixing.recorded import recorded_run
from tdiag.fixing.rerun_window import rerun_window
from tdiag.fixing.verify import Scratch

SIXTEEN_STEPS = textwrap.dedent("""\
    import torch


    @torch.compile(backend="eager")
    def step(x):
        return (x * 2).sin().sum()


    for i in range(16):
        print(round(step(torch.ones(64)).item(), 4))
""")


def _record(tmp_path, env, *options):
    (tmp_path / "loop.py").write_text(SIXTEEN_STEPS)
    out = tmp_path / ("record" + "".join(options).replace("-", ""))
    subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(out), *options, "loop.py"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    return out


def test_a_short_program_is_re_run_with_half_its_steps_profiled_and_half_steady(tmp_path, session_env):
    record = _record(tmp_path, session_env)
    runtime = build(str(record)).summary.runtime
    # torch's default window took every step after settling: nothing was left to time unobserved
    assert runtime.status == "measured" and runtime.steady_steps == 0
    window = rerun_window(record)
    assert window == str(runtime.steps // 2)
    run = recorded_run(str(record), build(str(record)).sources)
    with Scratch(run) as scratch:
        assert scratch.window == window
        result = scratch.rerun("before", scratch.copy("before", {}), dict(session_env), 300)
        again = build(str(result.record_dir)).summary.runtime
    assert again.steps == int(window) and again.steady_steps >= 3
    assert again.step_s == again.steady_step_s  # the step time the verdicts read is the unobserved one


def test_a_program_whose_window_left_steady_steps_keeps_the_default(tmp_path, session_env):
    record = _record(tmp_path, session_env, "--profile-window", "5")
    assert build(str(record)).summary.runtime.steady_steps == 5
    assert rerun_window(record) is None
