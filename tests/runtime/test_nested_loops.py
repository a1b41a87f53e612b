"""The window over a step called from nested loops (issue 64 item 3): an epoch loop around a batch loop, eager work
at each epoch's end, a last batch of another size.

Oracle: the program's own clock. ``epoch_loop.py`` times each step itself (time.perf_counter around the compiled call
and the optimizer) and writes the times to a file. By the window's documented rule (call 1 compiles, 2 quiet calls
settle, the window opens at call 4's start and closes 20 calls later, at call 24's (``--profile-window 20:2:30``: not
at 2 s); the interval it closed in is not timed) the steady steps are the program's own steps 25, 26, ... (0-based). The late-boundary tests run the window
in-process over real torch.compile calls, with its lateness bound shortened (the real one is 10 s).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag_testing import run_tdiag

PROGRAM = Path(__file__).parent / "programs" / "epoch_loop.py"


@pytest.fixture(scope="module")
def epoch_run(tmp_path_factory, session_env):
    tmp = tmp_path_factory.mktemp("epochs")
    out, clock = tmp / "record", tmp / "own.txt"
    # SECONDS 30: the window closes after its 20 steps on a loaded machine too (its first epoch's recompile is in it)
    proc = run_tdiag(["run", "--no-tui", "-o", str(out), "--profile-window", "20:2:30", str(PROGRAM), "4", "6",
                      str(clock)], session_env)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    own_us = [float(v) * 1e6 for v in clock.read_text().split()]
    printed = float(proc.stdout.split("step ms")[1]) * 1e-3
    return out, events, own_us, printed, " ".join(proc.stderr.split())


def test_a_step_called_from_an_epoch_loop_is_measured(epoch_run):
    out, events, own_us, printed, _ = epoch_run
    runtime = build(out).summary.runtime
    assert runtime.status == "measured" and not runtime.partial and runtime.cut is None
    assert runtime.steps == 20  # spanning three epochs' ends
    steady = next(e for e in events if e["type"] == "runtime_steady")
    assert steady["steps"] >= 5 and "skipped" not in steady
    # the same steps on the program's own timer (the window closed at call 24; the interval it closed in not timed)
    theirs = own_us[24:24 + steady["steps"]]
    assert runtime.steady_step_s == pytest.approx(statistics.median(theirs) * 1e-6, rel=0.15)
    print(f"tdiag {runtime.steady_step_s * 1e3:.3f} ms, own over the same steps "
          f"{statistics.median(theirs) * 1e-3:.3f} ms, own printed (epochs 2-4) {printed * 1e3:.3f} ms")


def test_the_epoch_ends_in_the_window_are_counted_and_said(epoch_run):
    out, events, _, _, summary = epoch_run
    runtime = build(out).summary.runtime
    window = next(e for e in events if e["type"] == "runtime")
    # the first epoch's end (its last batch of 104 rows recompiled, then the evaluation) is one of them
    assert 1 <= runtime.long_steps <= 4
    assert runtime.long_steps_s >= max(window["step_us"][1:]) * 1e-6
    assert "of its 20 steps ran over 3x the median step" in summary


# -- a late step boundary, in-process ----------------------------------------------------------------------------


def _window(monkeypatch, seconds: float, late: float):
    from tdiag.tracer import progress, runtime_window

    monkeypatch.setattr(runtime_window, "ABANDON_AFTER_S", late)
    events: list[dict] = []
    window = runtime_window.RuntimeWindow(events.append, runtime_window.WindowSpec(steps=20, settle=2, seconds=seconds))
    undo_window = window.install()
    undo_brackets = progress.install(window.on_compile)
    return window, events, lambda: (window.close(), undo_window(), undo_brackets and undo_brackets())


def test_a_late_boundary_ends_the_window_before_it(monkeypatch):
    import torch

    window, events, undo = _window(monkeypatch, seconds=0.3, late=0.2)
    try:
        step = torch.compile(lambda x: x * 2 + 1, backend="eager")
        x = torch.ones(8)
        for epoch in range(3):
            for _ in range(6):
                step(x)
            time.sleep(0.6)  # the epoch's end: past the window's end and the (shortened) bound after it
    finally:
        undo()
    (runtime,) = [e for e in events if e["type"] == "runtime"]
    # the window opened at call 4's start: calls 4 and 5 measured, call 6 ran into the epoch's end
    assert runtime["status"] == "measured" and runtime["steps"] == 2
    assert "not counted" in runtime["cut"] and "between calls" in runtime["cut"]
    assert runtime["window_us"] < 300_000 and len(runtime["step_us"]) == 2
    assert any(e["type"] == "runtime_steady" for e in events)  # the steps after it are still timed


def test_a_compile_in_the_first_window_step_settles_again(monkeypatch):
    import torch

    def slow_backend(gm, inputs):  # a compile that outlasts the window's bound, as Inductor's can on a GPU
        time.sleep(0.4)
        return gm.forward

    window, events, undo = _window(monkeypatch, seconds=0.05, late=0.1)
    try:
        step = torch.compile(lambda x: x * 2 + 1, backend=slow_backend, dynamic=False)
        for i in range(12):
            step(torch.ones(8 if i != 3 else 5))  # call 4, the window's first, compiles a new shape
    finally:
        undo()
    (runtime,) = [e for e in events if e["type"] == "runtime"]
    assert runtime["status"] == "measured" and "cut" not in runtime
    assert runtime["compiles"] == []  # measured after settling again: the compile is not in it
    assert runtime["window_us"] < 400_000
