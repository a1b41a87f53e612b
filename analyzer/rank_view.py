"""The per-rank view of a multi-rank run: per rank, its graph breaks, recompiles, compile time, measured step time and
communication, with the ranks that stand out called out. The HTML report's heat map and the TUI's Ranks screen both
draw this; it reads only the Analysis.

An outlier is a rank whose value is far from what is typical of the ranks. For counts (breaks, recompiles) typical is
the most common value (a tie: the lowest rank's, as DIV001 compares ranks with the first), and any other value is
an outlier. For times typical is the median (of two ranks: the lower value), and an outlier is more than ``REL`` of
it and more than the metric's ``floor`` away, and beyond three robust deviations (1.4826 x the median absolute
deviation) where the ranks spread: one slow rank of 256 is called out, the noise of a shared machine is not. A rank
with much less communication than the others is called out too: under synchronous collectives the others wait for it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import field

from tdiag.analyzer.model import Analysis

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class Metric:
    """One column of the view: its key in RankRow.values, its words, and how far from the median is an outlier."""

    key: str
    label: str
    unit: str  # "" for counts
    floor: float  # an outlier is at least this far from the median
    count: bool = False


METRICS = (
    Metric("breaks", "graph breaks", "", 1, count=True),
    Metric("recompiles", "recompiles", "", 1, count=True),
    Metric("compile_s", "compile time", "s", 0.5),
    Metric("step_ms", "step time", "ms", 0.1),
    Metric("comm_ms", "communication", "ms", 0.1),
)
REL = 0.25


@lean_dataclass
class RankRow:
    """One rank: its node and its value of each metric."""

    rank: int
    host: str | None = None
    values: dict[str, float | None] = field(default_factory=dict)  # metric key -> value (None: not measured)


@lean_dataclass
class Outlier:
    """A rank whose value of one metric is far from the median of all ranks."""

    rank: int
    metric: str  # Metric.key
    value: float
    typical: float
    host: str | None = None

    def text(self) -> str:
        m = next(m for m in METRICS if m.key == self.metric)
        fmt = (lambda v: f"{v:g}") if m.count else (lambda v: f"{v:.3g} {m.unit}")
        where = f" on {self.host}" if self.host else ""
        return f"rank {self.rank}{where}: {m.label} {fmt(self.value)} (typical of the ranks: {fmt(self.typical)})"


@lean_dataclass
class RankView:
    """Every rank's row, the metrics measured, and the outlier ranks (farthest first)."""

    rows: list[RankRow] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)  # those any rank has a value for
    outliers: list[Outlier] = field(default_factory=list)
    hosts: int = 0  # distinct nodes


def rank_view(analysis: Analysis) -> RankView | None:
    """The per-rank view; None for a single-process run."""
    ranks = sorted(set(analysis.run.ranks))
    if len(ranks) < 2:
        return None
    values: dict[int, dict[str, float | None]] = {r: {"breaks": 0, "recompiles": 0, "compile_s": 0.0} for r in ranks}
    for b in analysis.breaks:
        if b.rank in values:
            values[b.rank]["breaks"] += 1
    for r in analysis.recompiles:
        if r.rank in values:
            values[r.rank]["recompiles"] += 1
    for g in analysis.graphs:
        if g.rank in values:
            values[g.rank]["compile_s"] += g.compile_time_s
    runtime = analysis.summary.runtime
    per_rank = runtime.per_rank if runtime is not None else {}
    for rank in ranks:
        window = per_rank.get(str(rank)) or {}
        steps = window.get("steps") or 0
        values[rank]["step_ms"] = window["window_s"] / steps * 1e3 if steps and window.get("window_s") else None
        comm = (window.get("eager_parts") or {}).get("communication")
        values[rank]["comm_ms"] = comm / steps * 1e3 if steps and comm is not None else None
    hosts = analysis.run.hosts
    rows = [RankRow(r, hosts.get(r), {k: (round(v, 6) if v is not None else None) for k, v in values[r].items()})
            for r in ranks]
    metrics = [m for m in METRICS if any(row.values.get(m.key) is not None for row in rows)]
    outliers = [o for m in metrics for o in _outliers(rows, m)]
    return RankView(rows, metrics, outliers, len({h for h in hosts.values()}))


def _outliers(rows: list[RankRow], metric: Metric) -> list[Outlier]:
    measured = [(row, row.values[metric.key]) for row in rows if row.values.get(metric.key) is not None]
    if len(measured) < 2:
        return []
    values = [v for _, v in measured]
    if metric.count:
        counts = Counter(values)
        most = max(counts.values())
        typical = next(v for v in values if counts[v] == most)  # rows are in rank order: a tie takes the lowest rank's
        spread = 0.0
    else:
        typical = min(values) if len(values) == 2 else statistics.median(values)
        spread = 1.4826 * statistics.median(abs(v - typical) for v in values)
    out = []
    for row, v in measured:
        away = abs(v - typical)
        far = away >= metric.floor if metric.count else away > max(REL * typical, metric.floor, 3 * spread)
        if far:
            out.append(Outlier(row.rank, metric.key, v, typical, row.host))
    return sorted(out, key=lambda o: -abs(o.value - o.typical))
