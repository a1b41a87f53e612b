"""The runtime window of ``tdiag fix --verify``'s re-runs, sized from the record so each run times steady steps.

A re-run's step time is what a step-time patch is judged by. ``tdiag run`` profiles ``steps`` steps once compiles
settle, then times as many again with the profiler gone (``runtime_steady``, tracer/runtime_window.py): on a step
of a few milliseconds the profiler's own cost doubles the window's step (GPT-2 on an H100: 6.6-8.4 ms under the
window against the program's own 3.1-4.9 ms), and the steady steps are the program's speed. A program that calls
its step 24 times spends them all in the default 20-step window and gets no steady step, so its verdicts were
judged on profiled time. The record says how many times the step was called and how many the window held: when
the steps after the window were fewer than the window's, the re-runs split the steps after settling in two, half
profiled (the next round's findings still read the breakdown), half steady.
"""

from __future__ import annotations

from pathlib import Path

from tdiag.record import open_record

MIN_WINDOW_STEPS = 3  # analyzer/runtime.py's MIN_STEADY_STEPS: fewer steady steps say nothing
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
    # the step's calls from the window's opening to the program's end: split them between the window and the
    # steady steps
    half = (int(step.get("in_window") or 0) + after) // 2
    return str(half) if half >= MIN_WINDOW_STEPS else None
