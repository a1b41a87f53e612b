"""What each finding costs, and the ranking that follows from it.

- A graph break's cost is the eager time its frame ran after its graph, up to the resumed graph (``after`` time of
  the compile ids where it broke), measured in the window: ``basis: measured``.
- Recompile-family and compile findings cost the compile time of their graphs: inside the window when a compile
  happened there (a recompile storm; ``measured``), else their compile seconds over the whole run (``compile``).
- Kernel findings cost the measured device time of the kernels they name (CUDA; ``measured``).
- Anything else, and every finding of a record without a measured window, has ``basis: none`` (or ``compile``).

Multi-rank: a finding costs what it costs on its most expensive rank (the slowest rank sets the step time).
Reconciliation: compiled + guard + compile + attributed + unattributed = window, per rank.
"""

from __future__ import annotations

from tdiag.analyzer.model import SEVERITY_RANK, Analysis, Cost, Finding
from tdiag.analyzer.runtime import RankWindow

COMPILE_FAMILIES = ("RCP", "DYN", "CMP")
KERNEL_FAMILIES = ("LOW",)
# Findings whose eager time happens outside any compiled frame: it is in the window's eager time, but this version
# cannot tell it apart from the program's own eager code (no Python stacks are recorded in the window).
UNATTRIBUTABLE = ("BRK006", "RCP005")


def attach(analysis: Analysis, windows: list[RankWindow]) -> None:
    total_compile = sum(g.compile_time_s for g in analysis.graphs) or None
    for f in analysis.findings:
        f.cost = _cost(analysis, f, windows, total_compile)
    runtime = analysis.summary.runtime
    if runtime is None or runtime.status != "measured" or not windows:
        return
    for w in windows:
        attributed = sum(_break_seconds(f, w) for f in analysis.findings)
        w.summary.attributed_s = round(attributed, 6)
        w.summary.unattributed_s = round(max(w.summary.eager_s - attributed, 0.0), 6)
        if runtime.per_rank:
            runtime.per_rank[str(w.rank)].update(attributed_s=w.summary.attributed_s, unattributed_s=w.summary.unattributed_s)
    lead = windows[0]
    runtime.attributed_s, runtime.unattributed_s = lead.summary.attributed_s, lead.summary.unattributed_s


def _cost(analysis: Analysis, f: Finding, windows: list[RankWindow], total_compile: float | None) -> Cost | None:
    family = f.family
    if f.code in UNATTRIBUTABLE:
        return _compile_cost(analysis, f, total_compile) if family in COMPILE_FAMILIES else Cost(basis="none")
    if family == "BRK" and windows:
        return _measured(max(((_break_seconds(f, w), w) for w in windows), key=lambda p: p[0]))
    if family in COMPILE_FAMILIES:
        in_window = [(sum(w.compile_s.get(c, 0.0) for c in _cids(f, w)), w) for w in windows]
        best = max(in_window, key=lambda p: p[0], default=(0.0, None))
        if best[0] > 0:
            return _measured(best)
        return _compile_cost(analysis, f, total_compile)
    if family in KERNEL_FAMILIES and windows:
        seconds = _kernel_seconds(analysis, f)
        if seconds is not None:
            return _measured((seconds, windows[0]))
    return Cost(basis="none") if windows else None


def _measured(pair: tuple[float, RankWindow]) -> Cost:
    seconds, w = pair
    return Cost(
        total_s=round(seconds, 6),
        per_call_ms=round(seconds / w.steps * 1e3, 4) if w.steps else None,
        share=round(seconds / w.window_s, 4) if w.window_s else None,
        basis="measured",
    )


def _compile_cost(analysis: Analysis, f: Finding, total_compile: float | None) -> Cost | None:
    keys = set(f.graph_keys)
    seconds = sum(g.compile_time_s for g in analysis.graphs if g.key in keys)
    if not seconds:
        return Cost(basis="none") if analysis.summary.runtime is not None else None
    return Cost(total_s=round(seconds, 6), share=round(seconds / total_compile, 4) if total_compile else None, basis="compile")


def _cids(f: Finding, w: RankWindow) -> set[str]:
    """The finding's compile ids on this rank (graph_keys carry the rank; compile_ids alone for older findings)."""
    if f.graph_keys:
        return {k.compile_id for k in f.graph_keys if k.rank == w.rank}
    return set(f.compile_ids)


def _break_seconds(f: Finding, w: RankWindow) -> float:
    if f.family != "BRK" or f.code in UNATTRIBUTABLE:
        return 0.0
    return sum(w.after_s.get(c, 0.0) for c in _cids(f, w))


def _kernel_seconds(analysis: Analysis, f: Finding) -> float | None:
    keys = set(f.graph_keys)
    text = repr(f.evidence) + f.message
    times = [k.device_s for g in analysis.graphs if g.key in keys for k in g.kernels if k.device_s and k.name in text]
    return sum(times) if times else None


def rank_key(f: Finding) -> tuple:
    """What stopped the program first (CRS), then measured cost (largest first), then compile seconds, then
    findings without a cost (by severity)."""
    cost = f.cost
    if cost is not None and cost.basis == "measured" and cost.total_s > 0:
        tier = 0
    elif cost is not None and cost.basis == "compile" and cost.total_s > 0:
        tier = 1
    else:
        tier = 2
    seconds = cost.total_s if tier < 2 and cost is not None else 0.0
    first = 0 if f.family == "CRS" else 1
    return (first, tier, -seconds, SEVERITY_RANK.get(f.severity, 9), -f.impact, f.path, f.line, f.code)
