"""The runtime window of ``tdiag fix --verify``'s re-runs, sized from the record so each run times steady steps.

A re-run's step time is what a step-time patch is judged by. ``tdiag run`` profiles ``steps`` steps once compiles
settle, then times as many again with the profiler gone (``runtime_steady``, tracer/runtime_window.py): on a step
of a few milliseconds the profiler's own cost doubles the window's step (GPT-2 on an H100: 6.6-8.4 ms under the
window against the program's own 3.1-4.9 ms), and the steady steps are the program's speed. A program that calls
its step 24 times spends them all in the default 20-step window and gets no steady step, so its verdicts were
judged on profiled time. The record says how many times the step was called and how many the window held: when
the steps after the window were fewer than the window's, the re-runs give the steady phase the steps a verdict
needs (``MIN_STEPS_TO_JUDGE``, and ``SETTLE_MARGIN`` more for a patched version that settles a little later: CUDA
graphs warm up and record each size first) and the profiled window the rest, at least ``MIN_WINDOW_STEPS`` (the
next round's findings still read its breakdown): ``--profile-window WINDOW:::STEADY``, since the steady phase
otherwise times only as many steps as the window. An even split left GPT-2 9 steady steps on an H100, one short of
a verdict, so its CUDA graphs (6.9 -> 3.4 ms a step) were "not judged" and never kept.
"""

from __future__ import annotations

from pathlib import Path

from tdiag.fixing.compare import MIN_STEPS_TO_JUDGE
from tdiag.record import open_record

MIN_WINDOW_STEPS = 3  # analyzer/runtime.py's MIN_STEADY_STEPS: fewer steady steps say nothing
SETTLE_MARGIN = 4  # steps a patched version may take longer to settle than the record did (CUDA graphs: a warm-up
# and a recording per size)
PROGRAM_ENDED = "the program ended"  # runtime_steady's ``ended`` when the program, not a compile, ended the phase


def rerun_window(record_dir: Path) -> str | None:
    """``--profile-window STEPS`` for the re-runs of ``record_dir``'s command, or None to keep tdiag's default (the
    record's steps after its window already timed a steady phase, or it measured no step)."""
    runtime, steady = None, None
    for record in open_record(record_dir):
        for ev in record.events(blob_text=False):
            if ev.get("type") == "runtime" and ev.get("status") == "measured":
                runtime = runtime or ev
            elif ev.get("type") == "runtime_steady":
                steady = steady or ev
        break  # single-process records only (--verify refuses several ranks)
    if runtime is None:
        return None
    window = int(runtime.get("steps") or 0)
    after = int((steady or {}).get("steps") or 0)
    if after >= window or (steady is not None and steady.get("ended") != PROGRAM_ENDED):
        return None  # a steady phase as long as the window, or one a compile ended (more steps would not help)
    step = next((c for c in runtime.get("callables") or [] if c.get("name") == runtime.get("step_function")), None)
    if step is None:
        return None
    # the step's calls from the window's opening to the program's end, shared between the window and the steady steps
    return window_for(int(step.get("in_window") or 0) + after, window)


def window_for(calls: int, default: int) -> str | None:
    """The profiled window for ``calls`` step calls after settling: the steady phase first gets what a verdict
    needs (plus the margin where the calls allow it), the window the rest; an even split where they are too few
    for a verdict either way."""
    if calls >= MIN_WINDOW_STEPS + MIN_STEPS_TO_JUDGE:
        window = min(max(calls - MIN_STEPS_TO_JUDGE - SETTLE_MARGIN, MIN_WINDOW_STEPS), default)
        # the steady phase runs to the program's end (every call left), so a version that settles later keeps
        # what it has
        return None if window == default else f"{window}:::{calls}"
    half = calls // 2
    return f"{half}:::{calls}" if half >= MIN_WINDOW_STEPS else None
