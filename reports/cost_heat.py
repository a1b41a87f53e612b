"""Measured time per source line ("heat"), shared by the TUI Source screen and the HTML annotated source.

A line is as hot as the measured time attributed to it: the measured cost of the findings anchored on it (a graph
break's eager time, a recompile storm's compile time) plus the device time of the kernels it feeds (split evenly
over a kernel's source lines, so a kernel is counted once). Kernel findings are left out: their cost *is* kernel time,
already spread over the kernels' lines. Nothing here for a record without a measured window: no heat is invented.
"""

from __future__ import annotations

from collections import defaultdict

from tdiag.analyzer.cost import cost_model
from tdiag.analyzer.model import Analysis

from tdiag.lean_dataclass import lean_dataclass

HEAT_LEVELS = 4  # 1 (cool) .. 4 (hottest); 0: no measured time


@lean_dataclass(frozen=True)
class LineHeat:
    seconds: float  # measured time attributed to the line over the window
    share: float | None  # of the window
    per_step_ms: float | None
    level: int  # 1..HEAT_LEVELS, relative to the record's hottest line


def line_heat(analysis: Analysis) -> dict[str, dict[int, LineHeat]]:
    """path -> line -> heat, only for lines with measured time; empty when the window was not measured."""
    runtime = analysis.summary.runtime
    if runtime is None or runtime.status != "measured":
        return {}
    seconds: dict[tuple[str, int], float] = defaultdict(float)
    for f in analysis.findings:
        cost = f.cost
        # RUN findings are about the whole step (anchored at the step's def for navigation), not time at a line
        if cost is not None and cost.basis == "measured" and cost.total_s > 0 and cost_model(f) not in ("kernels", "evidence", "eager_other") and f.line:
            seconds[(f.path, f.line)] += cost.total_s
    for graph in analysis.graphs:
        for kernel in graph.kernels:
            lines = sorted({(ref.path, ref.line) for ref in kernel.source_lines if ref.line})
            if kernel.device_s and lines:
                for where in lines:
                    seconds[where] += kernel.device_s / len(lines)
    hottest = max(seconds.values(), default=0.0)
    heat: dict[str, dict[int, LineHeat]] = defaultdict(dict)
    for (path, line), s in seconds.items():
        if s <= 0:
            continue
        heat[path][line] = LineHeat(
            seconds=s,
            share=s / runtime.window_s if runtime.window_s else None,
            per_step_ms=s / runtime.steps * 1e3 if runtime.steps else None,
            level=heat_level(s, hottest),
        )
    return dict(heat)


def heat_level(seconds: float, hottest: float) -> int:
    """1..HEAT_LEVELS by the line's fraction of the hottest line (quarters)."""
    if seconds <= 0 or hottest <= 0:
        return 0
    return max(1, min(HEAT_LEVELS, int(seconds / hottest * HEAT_LEVELS + 0.999999)))


def heat_label(heat: LineHeat) -> str:
    """``0.68 ms/step (9% of the window)``."""
    amount = f"{heat.per_step_ms:.3g} ms/step" if heat.per_step_ms is not None else f"{heat.seconds * 1e3:.3g} ms"
    return amount + (f" ({heat.share:.0%} of the window)" if heat.share is not None else "")
