"""The compile-cache outcome in words, shared by the console summary, the TUI and the HTML report."""

from __future__ import annotations

from typing import Any

LABELS = (("fx_graph", "FX graph"), ("aot_autograd", "AOTAutograd"))


def cache_line(summary: Any) -> str | None:
    """One line: each cache's hits, misses and bypasses and the seconds they saved or cost; None where there is
    nothing to say (an Analysis from before caches were analysed, or a run that compiled no graph)."""
    cc = getattr(summary, "compile_cache", None)
    if cc is None or (not cc.recorded and not cc.disabled and not summary.graphs):
        return None
    if not cc.recorded:
        return f"compile cache: {cc.note}"
    parts = []
    for name, label in LABELS:
        counts = getattr(cc, name)
        if counts is not None and (counts.hit or counts.miss or counts.bypass):
            parts.append(f"{label} {counts.hit} hit, {counts.miss} miss, {counts.bypass} bypass")
    seconds = []
    if cc.seconds_saved:
        seconds.append(f"hits saved {cc.seconds_saved:.1f}s")
    if cc.seconds_missed:
        seconds.append(f"misses cost {cc.seconds_missed:.1f}s")
    if cc.unreadable:
        seconds.append(f"{cc.unreadable} unreadable")
    return "compile cache: " + "; ".join(parts + seconds + cc.disabled)


def graph_cache_text(graph: Any) -> str | None:
    """A graph's lookups: ``FX graph forward hit (saved 1.2s), backward miss (cost 3.4s); AOTAutograd hit``."""
    outcomes = getattr(graph, "cache_outcomes", None) or []
    if not outcomes:
        return None
    parts = []
    for name, label in LABELS:
        mine = [o for o in outcomes if o.cache == name]
        if mine:
            parts.append(f"{label} " + ", ".join(_outcome(o) for o in mine))
    return "; ".join(parts)


def _outcome(o: Any) -> str:
    text = f"{o.role} {o.state}" if o.role else o.state
    if o.seconds:
        text += f" ({'saved' if o.state == 'hit' else 'cost'} {o.seconds:.1f}s)"
    if o.state in ("bypass", "disabled") and o.words:
        text += f": {o.words}"
    return text
