"""The record's ``runtime`` events -> per-graph runtime, per-kernel device time and the window's time partition.

The tracer (``tracer/profile_timeline.py``) splits each rank's window into labelled time: ``graph`` (a compiled
graph's own call, per compile id), ``after`` (what a compiled frame ran after its graph: a graph break's eager part,
per compile id), ``guard`` (Dynamo cache lookups), ``compile`` (compiles inside the window), ``recording`` (CUDA-graph recordings
inside it), ``backward`` (compiled
backward) and ``eager`` (everything outside compiled frames: ``eager:optimizer``, ``eager:backward``, ``eager:data``,
``eager:loss``, ``eager:ops`` by the outermost profiler event that covered it, plain ``eager`` where none did: Python;
``eager:input``: the program's own input preparation, the end of each step after its last compiled code, from the
first op that brings data in: ``profile_timeline``'s docstring). This module turns that into the Analysis; which part
of the eager time each finding explains is ``cost.py``'s business.
"""

from __future__ import annotations

import statistics
from dataclasses import field
from typing import Any

from tdiag.analyzer.model import Analysis, GraphKey, GraphRuntime, RuntimeSummary

from tdiag.lean_dataclass import lean_dataclass

US = 1e-6
# The eager part that prepares the inputs of each step's first compiled call (random and constructor ops, data loading,
# copies to the device, the loop's Python): the program's own, never work to move into the compiled region (RUN001).
INPUT_PREPARATION = "input preparation"


@lean_dataclass
class RankWindow:
    """One rank's measured window, as the cost attribution reads it."""

    rank: int | None
    steps: int
    window_s: float
    after_s: dict[str, float] = field(default_factory=dict)  # compile id -> eager time after its graph
    compile_s: dict[str, float] = field(default_factory=dict)  # compile id -> compile time inside the window
    # stack samples of the stepping thread inside the window: "path:firstline:name" -> samples it was on the stack
    samples: dict[str, int] = field(default_factory=dict)
    sample_total: int = 0
    summary: RuntimeSummary = field(default_factory=RuntimeSummary)
    # of those, the samples in which compiled code the function entered was running (older records: none)
    compiled_inside: dict[str, int] = field(default_factory=dict)


@lean_dataclass
class RuntimeFacts:
    """The record's ``runtime`` events, parsed once (the runtime stage of analyzer/stages.py): what the rules, the
    cost of each finding, the comparison with eager and the Analysis read about the measured window."""

    windows: list[RankWindow]  # each measured rank's window, lowest rank first
    measured: list[dict[str, Any]]  # the measured events, in the record's order (per-graph and per-kernel time)
    summary: RuntimeSummary  # the run's: the lead rank's window, every rank's in ``per_rank``; or why none was measured
    step_us: list[float] = field(default_factory=list)  # the lead rank's per-step times (comparison with eager)

    @property
    def lead(self) -> RuntimeSummary | None:
        """The measured window of the lowest rank (or the only one); None when nothing was measured."""
        return self.windows[0].summary if self.windows else None


def runtime_events(log: Any) -> list[dict[str, Any]]:
    return [ev for ev in log.other if ev.get("type") == "runtime"]


def read_window(facts: Any) -> RuntimeFacts | None:
    """The runtime stage: the record's window, read once; None when the record has no runtime data."""
    return parse(facts.log)


def parse(log: Any) -> RuntimeFacts | None:
    events = runtime_events(log)
    if not events:
        return None
    windows: list[RankWindow] = []
    measured: list[dict[str, Any]] = []
    not_measured: list[RuntimeSummary] = []
    for ev in events:
        if ev.get("status") == "measured":
            window = _window(ev)
            if window is not None:
                windows.append(window)
                measured.append(ev)
        else:
            not_measured.append(RuntimeSummary(status="not_measured", reason=str(ev.get("reason") or "not measured")))
    _add_steady(windows, [ev for ev in log.other if ev.get("type") == "runtime_steady"])
    summary = _combined(windows, not_measured)  # sorts the windows, lowest rank first
    return RuntimeFacts(windows, measured, summary, _step_us(events))


def _add_steady(windows: list[RankWindow], events: list[dict[str, Any]]) -> None:
    """Each rank's steps timed after its window without the profiler (``runtime_steady``): their median, beside the
    window's mean. The median, as torch.utils.benchmark and the ceiling programs' own timers take it: one step that
    spans an epoch's end (a Lightning loop's teardown, a loader's restart) or a checkpoint is an outlier, not the
    speed, and a mean carrying it decided a verdict (lightning_train under CUDA graphs on an H100: 299 ms "a step"
    over 9 steps of about 2 ms). Fewer than MIN_STEADY_STEPS say nothing about a steady speed and are left out."""
    by_rank = {ev.get("rank"): ev for ev in events}
    for window in windows:
        ev = by_rank.get(window.rank)
        steps = [v for v in (ev or {}).get("step_us") or [] if isinstance(v, (int, float)) and v >= 0]
        if len(steps) >= MIN_STEADY_STEPS:
            window.summary.steady_step_s = round(statistics.median(steps) * US, 9)
            window.summary.steady_steps = len(steps)


MIN_STEADY_STEPS = 3
# A window step over this many times the window's median step is not a step like the others: the one spanning an outer
# loop's end (evaluation, printing, a checkpoint) when the step is called from nested loops, or one that compiled.
LONG_STEP_FACTOR = 3.0


def long_steps(step_us: list[float]) -> list[float]:
    """The window's steps (microseconds) over ``LONG_STEP_FACTOR`` times its median; none with fewer than 3 steps.
    The first is left out: it carries the profiler's start (a few ms on a CPU, several times a short step)."""
    rest = step_us[1:]
    if len(rest) < 3:
        return []
    median = statistics.median(rest)
    return [v for v in rest if v > LONG_STEP_FACTOR * median]


def place(analysis: Analysis, facts: RuntimeFacts) -> None:
    """Fill graphs[].runtime, kernels[].device_s and summary.runtime from the parsed window."""
    for ev in facts.measured:
        _attach_graphs(analysis, ev, ev.get("rank"))
    analysis.summary.runtime = facts.summary
    if facts.summary.status == "measured":
        facts.summary.entered_at = step_entry(analysis, facts.summary)


def attach(analysis: Analysis, log: Any) -> list[RankWindow]:
    """Parse and place in one call (for callers outside the pipeline); return each measured rank's window."""
    facts = parse(log)
    if facts is None:
        return []
    place(analysis, facts)
    return facts.windows


def _step_us(events: list[dict[str, Any]]) -> list[float]:
    """The per-step times of the lead rank's measured window."""
    for ev in sorted(events, key=lambda e: -1 if e.get("rank") is None else e["rank"]):
        if ev.get("status") == "measured" and isinstance(ev.get("step_us"), list):
            return [v for v in ev["step_us"] if isinstance(v, (int, float)) and v >= 0]
    return []


def step_entry(analysis, runtime: RuntimeSummary) -> str | None:
    """``"train.py:30"``: the user's line that enters the step's frame (every compile of that frame was entered from
    it), or None when the frames do not say or disagree."""
    if not runtime.step_function:
        return None
    name = runtime.step_function.rsplit(".", 1)[-1]
    path = runtime.step_path or ""

    def same_file(frame) -> bool:
        shown = frame.path or ""
        return bool(shown) and path.endswith("/" + shown.split(">/", 1)[-1])

    frames = [f for f in analysis.frames if f.call_site and f.line == runtime.step_line and same_file(f)] or [
        f for f in analysis.frames if f.call_site and (f.code_name or "").rsplit(".", 1)[-1] == name]
    sites = {(f.call_site.path, f.call_site.line) for f in frames}
    if len(sites) != 1:
        return None
    (site_path, site_line), = sites
    return f"{site_path}:{site_line}" if site_path and site_line else None


def _window(ev: dict[str, Any]) -> RankWindow | None:
    time_us = ev.get("time_us")
    window_us = ev.get("window_us")
    if not isinstance(time_us, dict) or not isinstance(window_us, (int, float)) or window_us <= 0:
        return None

    def total(label: str) -> float:
        by = time_us.get(label)
        return sum(v for v in by.values() if isinstance(v, (int, float))) * US if isinstance(by, dict) else 0.0

    def per_cid(label: str) -> dict[str, float]:
        by = time_us.get(label)
        return {k: v * US for k, v in by.items() if isinstance(v, (int, float))} if isinstance(by, dict) else {}

    rank = ev.get("rank")
    after = per_cid("after")
    compiled = total("graph") + total("backward")
    parts = {EAGER_PARTS.get(label, "python"): 0.0 for label in time_us if label == "eager" or label.startswith("eager:")}
    for label in time_us:
        if label == "eager" or label.startswith("eager:"):
            parts[EAGER_PARTS.get(label, "python")] += total(label)
    steps_us = [v for v in ev.get("step_us") or [] if isinstance(v, (int, float)) and v >= 0]
    long_us = long_steps(steps_us)
    device_time = ev.get("device_time") if isinstance(ev.get("device_time"), dict) else {}
    busy = device_time.get("busy_us")
    summary = RuntimeSummary(
        status="measured",
        steps=int(ev.get("steps") or 0),
        step_function=_text(ev.get("step_function")),
        device=ev.get("device") if isinstance(ev.get("device"), str) else None,
        window_s=round(window_us * US, 6),
        compiled_s=round(compiled, 6),
        eager_s=round(sum(parts.values()) + sum(after.values()), 6),
        guard_s=round(total("guard"), 6),
        compile_s=round(total("compile"), 6),
        recording_s=round(total("recording"), 6),
        basis="measured",
        partial=bool(ev.get("partial")),
        planned_steps=ev.get("planned_steps") if isinstance(ev.get("planned_steps"), int) else None,
        step_reason=_text(ev.get("step_reason")),
        step_path=_text(ev.get("step_path")),
        step_line=ev.get("step_line") if isinstance(ev.get("step_line"), int) else None,
        eager_parts={k: round(v, 6) for k, v in parts.items() if v > 0},
        device_busy_s=round(busy * US, 6) if isinstance(busy, (int, float)) else None,
        collectives=_collectives(ev.get("collectives")),
        long_steps=len(long_us),
        long_steps_s=round(sum(long_us) * US, 6),
        cut=_text(ev.get("cut")),
    )
    compiles: dict[str, float] = {}
    for item in ev.get("compiles") or []:
        if isinstance(item, list) and len(item) == 2 and isinstance(item[1], (int, float)):
            compiles[str(item[0])] = compiles.get(str(item[0]), 0.0) + item[1] * US
    sampled = ev.get("samples") if isinstance(ev.get("samples"), dict) else {}
    frames = sampled.get("frames") if isinstance(sampled.get("frames"), dict) else {}
    total = sampled.get("total") if isinstance(sampled.get("total"), int) else 0
    samples = {k: v for k, v in frames.items() if isinstance(v, int)}
    inside = sampled.get("compiled_inside") if isinstance(sampled.get("compiled_inside"), dict) else {}
    compiled_inside = {k: v for k, v in inside.items() if isinstance(v, int)}
    return RankWindow(rank, summary.steps, summary.window_s, after, compiles, samples, total, summary, compiled_inside)


EAGER_PARTS = {
    "eager": "python",
    "eager:ops": "eager ops",
    "eager:loss": "loss",
    "eager:optimizer": "optimizer",
    "eager:backward": "eager backward",
    "eager:data": "data movement",
    "eager:comm": "communication",
    "eager:fsdp": "fsdp hooks",
    "eager:input": INPUT_PREPARATION,
}


def window_summary(ev: dict[str, Any]) -> tuple[int | None, RuntimeSummary] | None:
    """(rank, the window's summary) of one measured ``runtime`` event; None when it holds no usable window."""
    window = _window(ev)
    return (window.rank, window.summary) if window is not None else None


def _collectives(raw: Any) -> dict[str, dict[str, float]]:
    if not isinstance(raw, dict):
        return {}
    out = {}
    for kind, v in raw.items():
        if isinstance(v, dict) and all(isinstance(v.get(k), (int, float)) for k in ("calls", "issue_us", "run_us")):
            out[str(kind)] = {"calls": int(v["calls"]), "issue_s": round(v["issue_us"] * US, 6),
                              "run_s": round(v["run_us"] * US, 6)}
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _attach_graphs(analysis: Analysis, ev: dict[str, Any], rank: int | None) -> None:
    graphs = ev.get("graphs") if isinstance(ev.get("graphs"), dict) else {}
    own = (ev.get("time_us") or {}).get("graph") or {}
    on_device = ev.get("device") == "cuda"
    for cid, g in graphs.items():
        graph = analysis.graph(GraphKey(rank, str(cid)))
        if graph is None or not isinstance(g, dict):
            continue
        device_us = g.get("device_us") if on_device else g.get("op_us")
        graph.runtime = GraphRuntime(
            calls=int(g.get("calls") or 0),
            host_s=round(float(own.get(cid, 0)) * US, 6),
            device_s=round(float(device_us) * US, 6) if isinstance(device_us, (int, float)) else None,
        )
    if isinstance(ev.get("graph_calls"), dict) and ev["graph_calls"]:
        # joined per launch to the graph call that launched it (issue 23): analyzer/kernel_time.py
        from tdiag.analyzer import kernel_time

        kernel_time.attach(analysis, ev["graph_calls"], rank)
        return
    kernels = ev.get("kernels") if isinstance(ev.get("kernels"), dict) else {}
    if not kernels:
        return
    for graph in analysis.graphs:
        if graph.rank != rank or graph.runtime is None or not graph.runtime.calls:  # only graphs that ran get time
            continue
        for kernel in graph.kernels:
            measured = kernels.get(kernel.name)
            if isinstance(measured, list) and len(measured) == 2 and isinstance(measured[1], (int, float)):
                kernel.device_s = round(measured[1] * US, 6)


def _combined(windows: list[RankWindow], not_measured: list[RuntimeSummary]) -> RuntimeSummary:
    """The lead rank's window as the run's; every rank's in ``per_rank`` (multi-rank runs)."""
    if not windows:
        return not_measured[0] if not_measured else RuntimeSummary()
    windows.sort(key=lambda w: -1 if w.rank is None else w.rank)
    lead = RuntimeSummary(**{k: v for k, v in vars(windows[0].summary).items()})
    if len(windows) > 1 or windows[0].rank is not None:
        lead.per_rank = {str(w.rank): _public(w.summary) for w in windows}
    return lead


def _public(s: RuntimeSummary) -> dict[str, Any]:
    return {k: v for k, v in vars(s).items() if k != "per_rank"}
