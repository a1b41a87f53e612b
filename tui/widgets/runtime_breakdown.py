"""The measured runtime window on the Overview: where each step's time went, one bar per rank."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from tdiag.analyzer.model import RuntimeSummary
from tdiag.reports.cost_format import PART_COLORS, per_step_ms, rank_runtimes, runtime_parts

BAR_WIDTH = 48
PART_STYLES = PART_COLORS  # the HTML chart's colours; the legend spells each part out


def runtime_breakdown(runtime: RuntimeSummary | None) -> Group | None:
    """None for a record without runtime data; a one-line reason when the window was not measured."""
    if runtime is None:
        return None
    if runtime.status != "measured":
        return Group(Text(f"runtime: not measured ({runtime.reason or 'no window'})", style="dim"))
    lines = [_title(runtime)]
    for label, window in rank_runtimes(runtime):
        lines.append(_bar(label, window))
    lines.append(_legend(runtime))
    return Group(*lines)


def _title(runtime: RuntimeSummary) -> Text:
    step = per_step_ms(runtime)
    text = Text("runtime ", style="bold")
    what = f"{runtime.step_function}()" if runtime.step_function else "the program"
    text.append(f"{runtime.steps} steps of {what} measured", style="dim")
    if step is not None:
        text.append(f"  {step:.3g} ms/step", style="bold")
    return text


def _bar(label: str, window: RuntimeSummary) -> Text:
    parts = runtime_parts(window)
    text = Text(f"{label:<7} " if label else "", style="dim")
    total = window.window_s or sum(v for _, v in parts) or 1.0
    used = 0
    for name, seconds in parts:
        cells = round(seconds / total * BAR_WIDTH)
        cells = min(cells, BAR_WIDTH - used)
        text.append("█" * cells, style=PART_STYLES.get(name, ""))
        used += cells
    text.append("░" * (BAR_WIDTH - used), style="dim")
    step = per_step_ms(window)
    if step is not None:
        text.append(f" {step:.3g} ms/step", style="")
    return text


def _legend(runtime: RuntimeSummary) -> Text:
    text = Text()
    for name, seconds in runtime_parts(runtime):
        share = seconds / runtime.window_s if runtime.window_s else 0.0
        text.append("█ ", style=PART_STYLES.get(name, "")).append(f"{name} {seconds * 1e3:.3g} ms ({share:.0%})  ", style="dim")
    return text
