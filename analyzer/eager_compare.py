"""Compiled vs eager: the measured step of ``tdiag run`` against the same program run with torch.compile disabled.

``tdiag run --vs-eager`` runs the command again under the same window measurement with ``TORCH_COMPILE_DISABLE=1``
(its output discarded) and writes what that run measured as one ``eager_baseline`` event into the record
(docs/runtime-window.md, "Compared with eager"). This module reads it into ``Summary.vs_eager``, the one line every
output prints, and RUN003 reads the same comparison.

One window a side is one sample of each, so window means are never compared: each window carries its steps' own
durations (``step_us``), and the step is judged on those. The compiled step is slower (faster) only when the
interquartile ranges of the two sides' per-step times lie apart by more than ``TOLERANCE`` *and* the compiled step
took longer (shorter) than the eager step in at least ``MIN_PAIR_SHARE`` of all (compiled step, eager step) pairs;
anything else is "within the spread". Each side needs ``MIN_STEPS`` measured steps. How sure the verdict is is said
in words: the two ranges and the share of pairs.

Where the compiled step's time goes (``where_time_goes``) is shared with ``tdiag fix --verify --eager``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from tdiag.analyzer.model import EagerComparison, RuntimeSummary

EVENT = "eager_baseline"
ENV = {"TORCH_COMPILE_DISABLE": "1"}  # how the eager run disables torch.compile (as `tdiag fix --verify --eager`)
MIN_STEPS = 10  # per side: fewer per-step times have no spread worth judging
TOLERANCE = 0.10  # the gap between the interquartile ranges, relative to the faster side's upper quartile
MIN_PAIR_SHARE = 0.9  # of (compiled step, eager step) pairs that must agree with the verdict
NOT_REQUESTED = "not compared with eager (tdiag run --vs-eager measures it)"

# Where the compiled step's time goes: the window's parts, each with what it means when the compiled step is slow.
PARTS = {
    "compiled graphs": "the graphs themselves run slower than eager ops (a backend without fusion, e.g. aot_eager, "
                       "adds tracing overhead; Inductor or a larger step amortises it)",
    "eager code between and around the graphs": "the step is mostly eager: see RUN001 and the graph breaks",
    "guard checks": "guards dominate a tiny step: fewer, larger compiled calls",
    "compiling inside the window": "it still compiles inside the measured window: see the RCP findings",
}
FIXES = {
    "compiled graphs": "compile with backend=\"inductor\" (eager and aot_eager fuse nothing and add per-call "
                       "overhead), compile a larger region so the per-call overhead is paid once per step, or leave "
                       "a step this small uncompiled",
    "eager code between and around the graphs": "remove the graph breaks in the step (the BRK findings): each one "
                                                "re-enters Dynamo (cache lookup, guards, a resume function) every "
                                                "step; then compile the code around the graphs into the step too",
    "guard checks": "compile a larger region (the whole step rather than a tiny function called many times inside "
                    "it), so guards are checked once per step",
    "compiling inside the window": "stop the recompiles inside the steps (the RCP findings: mark_dynamic, "
                                   "dynamic=True for the changing input)",
}


def where_time_goes(runtime: RuntimeSummary | None, graph_breaks: int = 0) -> tuple[str | None, str]:
    """(the largest part of the compiled step, a sentence with every part's share and what the largest means).
    With ``graph_breaks`` in the run, the guard checks are counted with the code between the graphs: each break
    re-enters Dynamo every step (a cache lookup and its guards), so removing the breaks is what removes them."""
    if runtime is None or runtime.status != "measured" or runtime.window_s <= 0:
        return None, "the compiled run has no measured window"
    parts = {"compiled graphs": runtime.compiled_s, "eager code between and around the graphs": runtime.eager_s,
             "guard checks": runtime.guard_s, "compiling inside the window": runtime.compile_s}
    ranked = dict(parts)
    if graph_breaks:
        ranked["eager code between and around the graphs"] += ranked.pop("guard checks")
    name, _ = max(ranked.items(), key=lambda kv: kv[1])
    share = ", ".join(f"{k} {v / runtime.window_s:.0%}" for k, v in parts.items() if v > 0)
    between = "eager code between and around the graphs"
    subject = f"{name}, with the guard checks each re-entry pays," if graph_breaks and name == between else name
    return name, f"{subject} take the largest share of the compiled step ({share}): {PARTS[name]}"


def events(log: Any) -> list[dict[str, Any]]:
    return [ev for ev in getattr(log, "other", []) if ev.get("type") == EVENT] if log is not None else []


def stage(facts: Any) -> EagerComparison | None:
    """The vs_eager stage of analyzer/stages.py, from the runtime stage's window."""
    window = facts.get("runtime")
    return compare(facts.log, window.summary if window else None, window.step_us if window else [])


def compare(log: Any, runtime: RuntimeSummary | None, step_us: list[float] | None = None) -> EagerComparison | None:
    """The comparison of the record's measured step with its eager runs; None when there is neither (no measured
    step, no eager run: nothing to say). ``step_us``: the lead rank's per-step times (analyzer/runtime.py's facts;
    None: read from the log)."""
    found = events(log)
    measured = runtime is not None and runtime.status == "measured" and runtime.steps > 0
    if not found:
        return EagerComparison(line=NOT_REQUESTED) if measured else None
    ev = found[-1]
    runs = [r for r in ev.get("runs") or [] if isinstance(r, dict)]
    result = EagerComparison(status="not_measured", eager_runs_asked=len(runs) or _int(ev.get("runs_asked")))
    result.eager_exit_codes = [r["exit_code"] for r in runs if isinstance(r.get("exit_code"), int)]
    compiled_exit = _compiled_exit(log)
    why = _str(ev.get("reason"))
    differs = [c for c in result.eager_exit_codes if c != compiled_exit]
    if why is None and differs:  # first: a compiled run that stopped where eager finishes measured no step either
        why = (f"the program exits {differs[0]} with torch.compile disabled (compiled: {compiled_exit}): it does "
               "not run the same way eagerly, so its steps are not the same work")
    if why is None and not measured:
        why = "the compiled run measured no step" + (f" ({runtime.reason})" if runtime and runtime.reason else "")
    eager_steps: list[float] = []
    if why is None:
        for run in runs:
            steps = [v * 1e-6 for v in run.get("step_us") or [] if isinstance(v, (int, float)) and v >= 0]
            if run.get("status") == "measured" and steps:
                eager_steps += steps
                result.eager_runs += 1
        if not eager_steps:
            reasons = [_str(r.get("reason")) for r in runs if _str(r.get("reason"))]
            why = "the eager run measured no step" + (f" ({reasons[0]})" if reasons else "")
    if why is not None:
        result.reason = why
        result.line = f"not compared with eager: {why}"
        return result
    compiled_steps = [v * 1e-6 for v in (_step_us(log) if step_us is None else step_us)]
    if not compiled_steps:  # a window from a tdiag without per-step times: its mean, one value
        compiled_steps = [runtime.window_s / runtime.steps]
    result.status = "measured"
    result.compiled_step_times_s = [round(v, 9) for v in compiled_steps]
    result.eager_step_times_s = [round(v, 9) for v in eager_steps]
    _judge(result, compiled_steps, eager_steps)
    if result.verdict == "slower":
        result.cause = where_time_goes(runtime, len(getattr(log, "break_sites", None) or ()))[1]
    return result


def _judge(result: EagerComparison, compiled: list[float], eager: list[float]) -> None:
    c1, cm, c3 = quartiles(compiled)
    e1, em, e3 = quartiles(eager)
    result.compiled_step_s, result.eager_step_s = round(cm, 9), round(em, 9)
    result.speedup = round(em / cm, 4) if cm > 0 else None
    result.slower_share = round(slower_share(compiled, eager), 4)
    head = f"vs eager: compiled {_ms(cm)} ms/step, eager {_ms(em)} ms/step"
    ranges = (f"per-step interquartile ranges: compiled {_ms(c1)}-{_ms(c3)} ms over {len(compiled)} steps, eager "
              f"{_ms(e1)}-{_ms(e3)} ms over {len(eager)} steps of {result.eager_runs} run(s); the compiled step took "
              f"longer in {result.slower_share:.0%} of the step pairs")
    if min(len(compiled), len(eager)) < MIN_STEPS:
        result.verdict = "within"
        result.line = f"{head}: not judged (a side has fewer than {MIN_STEPS} measured steps)"
        result.detail = ranges
        return
    if c1 > e3 * (1 + TOLERANCE) and result.slower_share >= MIN_PAIR_SHARE:
        result.verdict = "slower"
        result.line = f"{head}: compiled {cm / em:.1f}x slower than eager" if em > 0 else head
    elif c3 * (1 + TOLERANCE) < e1 and result.slower_share <= 1 - MIN_PAIR_SHARE:
        result.verdict = "faster"
        result.line = f"{head}: compiled {em / cm:.1f}x faster than eager"
    else:
        result.verdict = "within"
        result.line = f"{head}: within the spread, no verdict"
    caveat = ("" if result.eager_runs > 1 else "; one eager run: a slowdown of the whole machine during one of the "
              "two runs is not ruled out (--vs-eager-runs N)")
    result.detail = ("beyond the spread: " if result.verdict != "within" else "") + ranges + caveat


def sureness(vs: EagerComparison) -> str:
    """How sure a verdict is, in a few words: the share of step pairs that agree with it, and over how many."""
    pairs = f"{len(vs.compiled_step_times_s)} x {len(vs.eager_step_times_s)} step pairs"
    share = vs.slower_share or 0.0
    if vs.verdict == "faster":
        return f"the compiled step was shorter in {1 - share:.0%} of {pairs}, the interquartile ranges apart"
    return f"the compiled step took longer in {share:.0%} of {pairs}, the interquartile ranges apart"


def line(analysis: Any) -> str | None:
    """The line every output prints about compiled vs eager, or None when there is nothing to say."""
    vs = getattr(analysis.summary, "vs_eager", None)
    return vs.line if vs is not None and vs.line else None


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(lower quartile, median, upper quartile), interpolated between the sorted values."""
    ordered = sorted(values)

    def at(q: float) -> float:
        pos = q * (len(ordered) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(ordered) - 1)
        return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)

    return at(0.25), at(0.5), at(0.75)


def slower_share(compiled: list[float], eager: list[float]) -> float:
    """Share of (compiled, eager) pairs in which the compiled value is larger; ties count half."""
    ordered = sorted(eager)
    wins = sum(bisect_left(ordered, c) + (bisect_right(ordered, c) - bisect_left(ordered, c)) / 2 for c in compiled)
    return wins / (len(compiled) * len(ordered)) if compiled and ordered else 0.0


def _step_us(log: Any) -> list[float]:
    """The per-step times of the lead rank's measured window (the one ``runtime`` describes)."""
    from tdiag.analyzer.runtime import parse

    window = parse(log)
    return window.step_us if window is not None else []


def _compiled_exit(log: Any) -> int | None:
    exits = getattr(log, "exits", {}) or {}
    for rank in sorted(exits, key=lambda r: -1 if r is None else r):
        code = exits[rank].get("code")
        if isinstance(code, int):
            return code
    return None


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 1000 else f"{ms:.0f}"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
