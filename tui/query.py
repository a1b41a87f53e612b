"""The Findings screen's filter and sort state, as a plain value that tests can assert on."""

from __future__ import annotations

from tdiag.analyzer.model import SEVERITY_RANK, Analysis
from tdiag.analyzer.ranking import rank_key
from tdiag.tui.index import AnalysisIndex

from tdiag.lean_dataclass import lean_dataclass

SORT_KEYS = ("impact", "code", "severity", "site", "occurrences", "cost")


@lean_dataclass
class FindingQuery:
    text: str = ""
    family: str | None = None
    severity: str | None = None
    rank: int | None = None
    sort: str = "impact"
    descending: bool = False

    def apply(self, index: AnalysisIndex) -> list[int]:
        """Indexes of the matching findings, in display order."""
        empty: frozenset[int] = frozenset()
        kept = [rows.get(value, empty) for rows, value in ((index.by_family, self.family),
                (index.by_severity, self.severity), (index.by_rank, self.rank)) if value is not None]
        allowed = frozenset.intersection(*kept) if kept else None
        needle = self.text.lower().strip()
        text = index.search_text
        order = index.order(self.sort, _SORT_KEY.get(self.sort))
        if allowed is None and not needle:
            selected = list(order)
        elif not needle:
            selected = [i for i in order if i in allowed]  # type: ignore[operator]
        else:
            selected = [i for i in order if needle in text[i] and (allowed is None or i in allowed)]
        if self.descending:
            selected.reverse()
        return selected

    def describe(self) -> str:
        parts = [f"sort: {self.sort}{' ↓' if self.descending else ''}"]
        if self.family:
            parts.append(f"family: {self.family}")
        if self.severity:
            parts.append(f"severity: {self.severity}")
        if self.rank is not None:
            parts.append(f"rank: {self.rank}")
        if self.text:
            parts.append(f"search: {self.text!r}")
        return "  ".join(parts)


_SORT_KEY = {
    "code": lambda f: (f.code, f.path, f.line),
    "severity": lambda f: (SEVERITY_RANK.get(f.severity, 99), f.code),
    "site": lambda f: (f.path, f.line, f.column or 0),
    "occurrences": lambda f: (-f.occurrences, f.code),
    "cost": rank_key,  # measured cost first (largest first), then compile seconds, then the rest by severity
}


def has_cost(analysis: Analysis) -> bool:
    """The record has runtime data (measured or said why not): findings carry a cost worth a column."""
    return analysis.summary.runtime is not None


def default_sort(analysis: Analysis) -> str:
    """Measured cost when the window was measured: what to fix first is what costs the most time."""
    runtime = analysis.summary.runtime
    return "cost" if runtime is not None and runtime.status == "measured" else "impact"


def cycle(options: list[str], current: str | None) -> str | None:
    """Next value in ``None -> options[0] -> ... -> None``: how the filter keys step through choices."""
    if current is None:
        return options[0] if options else None
    position = options.index(current) if current in options else -1
    return options[position + 1] if position + 1 < len(options) else None
