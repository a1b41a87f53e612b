"""Words and numbers for measured cost, shared by every output (console, lint, TUI, HTML, diff)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tdiag.analyzer.model import Cost, RuntimeSummary

if TYPE_CHECKING:  # the diff model is imported where a diff is shown: the end-of-run summary never loads it
    from tdiag.analyzer.diff import CostDelta, RuntimeDelta


def cost_label(cost: Cost | None) -> str:
    """``2.58 ms/step (18%)`` for a measured cost, ``1.20 s compile`` for a compile cost, ``-`` for none."""
    if cost is None or cost.basis == "none":
        return "-"
    if cost.basis == "compile":
        return f"{cost.total_s:.2f} s compile"
    per_step = f"{cost.per_call_ms:.3g} ms/step" if cost.per_call_ms is not None else f"{cost.total_s * 1e3:.3g} ms"
    return bound_mark(cost) + per_step + (f" ({cost.share:.0%})" if cost.share is not None else "")


def cost_short(cost: Cost | None) -> str:
    """At most 10 cells for a table column: ``2.28 ms`` per step measured, ``1.2 s comp`` compile, ``-`` none."""
    if cost is None or cost.basis == "none":
        return "-"
    if cost.basis == "compile":
        return f"{cost.total_s:.2g} s comp"
    return bound_mark(cost) + (f"{cost.per_call_ms:.3g} ms" if cost.per_call_ms is not None else f"{cost.total_s * 1e3:.3g} ms tot")


LOWER_BOUND = "≥"


def bound_mark(cost: Cost) -> str:
    """``≥`` before a figure the fix's saving exceeds (``Cost.lower_bound``: a graph break's cost), else nothing."""
    return LOWER_BOUND if cost.lower_bound else ""


def lower_bound_notes(costs: list[Cost | None]) -> list[str]:
    """A table's footnote: ``≥ <what it leaves out>``, once per distinct caveat of the ``≥`` figures among these."""
    caveats = (c.caveat for c in costs if c is not None and c.basis != "none" and c.lower_bound and c.caveat)
    return [f"{LOWER_BOUND} {text}" for text in dict.fromkeys(caveats)]


def runtime_line(runtime: RuntimeSummary | None) -> str | None:
    """One line on the measured window and its reconciliation; None when the record has no runtime data."""
    if runtime is None:
        return None
    if runtime.status != "measured":
        return f"runtime: not measured ({runtime.reason or 'no window'})"
    parts = runtime_parts(runtime)
    accounted = sum(v for _, v in parts)
    partial = (
        f" (partial window: the program ended {runtime.steps} of {runtime.planned_steps} steps into it)"
        if runtime.partial and runtime.planned_steps
        else ""
    )
    cut = f" (the window ends at the step boundary before a late one: {runtime.cut})" if runtime.cut else ""
    return (
        f"runtime: {runtime.steps} steps in {runtime.window_s * 1e3:.1f} ms measured{partial}{cut}: "
        + ", ".join(f"{label} {v * 1e3:.1f} ms" for label, v in parts)
        + f" (accounts for {accounted / runtime.window_s:.0%} of the window)"
        + _long_steps(runtime)
        if runtime.window_s
        else ""
    )


def _long_steps(runtime: RuntimeSummary) -> str:
    """The window's steps far longer than its median (nested loops: an outer iteration's end), counted and said."""
    if not runtime.long_steps or not runtime.steps:
        return ""
    from tdiag.analyzer.runtime import LONG_STEP_FACTOR

    return (f"; {runtime.long_steps} of its {runtime.steps} steps ran over {LONG_STEP_FACTOR:g}x the median step "
            f"({runtime.long_steps_s * 1e3:.1f} ms in all: a compile in them, or eager work between calls such as an "
            "outer loop's end), counted in the window")


def runtime_detail_lines(runtime: RuntimeSummary | None, user_paths: Iterable[str] = ()) -> list[str]:
    """Which callable was the step and why; what the eager time outside compiled code ran; the device's busy time.
    ``user_paths``: the record's display paths (its sources), so a user's step file reads as every finding's does."""
    if runtime is None or runtime.status != "measured":
        return []
    lines = []
    if runtime.step_function:
        where = f" ({_short(runtime.step_path, user_paths)}:{runtime.step_line})" if runtime.step_path else ""
        if runtime.entered_at and _is_library(runtime.step_path):  # a library's step: the user's line that enters
            # it first, the library's file beside it (a step the user defines is named at its def)
            where = f" at {runtime.entered_at}{where}"
        lines.append(f"step: {runtime.step_function}(){where}, " + (runtime.step_reason or "the step callable"))
    if runtime.steady_step_s is not None and runtime.steps:
        lines.append(f"step time: {runtime.steady_step_s * 1e3:.3g} ms over {runtime.steady_steps} steps after the "
                     f"window, without the profiler ({runtime.window_s / runtime.steps * 1e3:.3g} ms/step under it: "
                     "the parts above are the window's)")
    other = runtime.unattributed_s
    if runtime.eager_parts and other > 0 and runtime.steps:
        parts = sorted(runtime.eager_parts.items(), key=lambda kv: -kv[1])
        lines.append(
            f"eager (other) {other / runtime.steps * 1e3:.3g} ms/step: "
            + ", ".join(f"{name} {v / runtime.steps * 1e3:.3g}" for name, v in parts if v / runtime.steps >= 5e-6)
        )
    if runtime.device_busy_s is not None and runtime.window_s and runtime.steps:
        busy = runtime.device_busy_s / runtime.window_s
        lines.append(
            f"device: busy {runtime.device_busy_s / runtime.steps * 1e3:.3g} ms/step ({busy:.0%}), "
            f"idle {(runtime.window_s - runtime.device_busy_s) / runtime.steps * 1e3:.3g} ms/step ({1 - busy:.0%})"
        )
    return lines


# One colour per part of the window, the same in the TUI bar and the HTML chart.
PART_COLORS = {
    "compiled": "#2e7d32",
    "eager (findings)": "#c62828",
    "eager (other)": "#f9a825",
    "guards": "#8e24aa",
    "compile": "#1565c0",
    "cudagraph recording": "#00838f",
}


def runtime_parts(runtime: RuntimeSummary) -> list[tuple[str, float]]:
    """The window's partition: compiled, eager explained by findings, other eager, guards, compile."""
    return [
        ("compiled", runtime.compiled_s),
        ("eager (findings)", runtime.attributed_s),
        ("eager (other)", runtime.unattributed_s),
        ("guards", runtime.guard_s),
        ("compile", runtime.compile_s),
        # named only where the window held one (torch recorded a CUDA graph inside it), so other windows read as before
        *([("cudagraph recording", runtime.recording_s)] if runtime.recording_s else []),
    ]


def cost_change_label(delta: CostDelta) -> str:
    """``2.58 ms/step (18%) -> 0.40 ms/step (3%), -2.18 ms/step`` for one finding present in both runs of a diff."""
    text = f"{cost_label(delta.base)} -> {cost_label(delta.new)}"
    change = delta.change
    if change is None:
        return text
    return text + f", {change:+.3g} {delta.unit}"


def runtime_delta_lines(delta: RuntimeDelta | None) -> list[str]:
    """Time per step before/after in the measured windows, and how each part of the window moved."""
    if delta is None:
        return []
    if delta.base is None or delta.new is None:
        base = f"{delta.base['step']:.3g} ms" if delta.base else f"not measured ({delta.base_reason})"
        new = f"{delta.new['step']:.3g} ms" if delta.new else f"not measured ({delta.new_reason})"
        return [f"time per step (measured window): {base} -> {new}"]
    step = delta.change("step")
    share = f", {step / delta.base['step']:+.0%}" if delta.base["step"] else ""
    lines = [f"time per step (measured window): {delta.base['step']:.3g} ms -> {delta.new['step']:.3g} ms ({step:+.3g} ms{share})"]
    from tdiag.analyzer.diff import RUNTIME_PARTS

    parts = [f"{name} {delta.base[name]:.3g} -> {delta.new[name]:.3g}" for name, _ in RUNTIME_PARTS if name != "step"]
    lines.append("  ms/step: " + ", ".join(parts))
    return lines


def rank_runtimes(runtime: RuntimeSummary | None) -> list[tuple[str, RuntimeSummary]]:
    """Each measured window to show: ("", the run's) for one process, ("rank N", ...) per rank for a multi-rank run."""
    if runtime is None or runtime.status != "measured":
        return []
    if len(runtime.per_rank) <= 1:
        return [("", runtime)]
    fields = set(vars(RuntimeSummary()))
    out = []
    for rank, values in sorted(runtime.per_rank.items(), key=lambda kv: (len(kv[0]), kv[0])):
        out.append((f"rank {rank}", RuntimeSummary(**{k: v for k, v in values.items() if k in fields})))
    return out


def per_step_ms(runtime: RuntimeSummary) -> float | None:
    return runtime.window_s / runtime.steps * 1e3 if runtime.steps else None


def _short(path: str, user_paths: Iterable[str] = ()) -> str:
    """A library file as its package path (``transformers/models/gpt2/modeling_gpt2.py``), a user file as the
    findings name it (relative to the project root: the longest display path it ends with), else by name."""
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            return path.rsplit(marker, 1)[-1]
    matching = [p for p in user_paths if path == p or path.endswith("/" + p)]
    return max(matching, key=len) if matching else path.rsplit("/", 1)[-1]


def _is_library(path: str | None) -> bool:
    return bool(path) and ("/site-packages/" in path or "/dist-packages/" in path)
