"""The Findings screen's filter and sort state, as a plain value that tests can assert on."""

from __future__ import annotations

from dataclasses import dataclass

from tdiag.analyzer.model import SEVERITY_RANK, Finding

from tdiag.tui.index import AnalysisIndex

SORT_KEYS = ("impact", "code", "severity", "site", "occurrences")


@dataclass
class FindingQuery:
    text: str = ""
    family: str | None = None
    severity: str | None = None
    rank: str | None = None
    sort: str = "impact"
    descending: bool = False

    def apply(self, index: AnalysisIndex) -> list[int]:
        """Indexes of the matching findings, in display order."""
        findings = index.analysis.findings
        needle = self.text.lower().strip()
        selected = [
            i
            for i, f in enumerate(findings)
            if (self.family is None or f.family == self.family)
            and (self.severity is None or f.severity == self.severity)
            and (self.rank is None or f.ranks.get(self.rank, 0) > 0)
            and (not needle or needle in index.search_text[i])
        ]
        if self.sort != "impact":
            key = _SORT_KEY[self.sort]
            selected.sort(key=lambda i: key(findings[i]))
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
}


def cycle(options: list[str], current: str | None) -> str | None:
    """Next value in ``None -> options[0] -> ... -> None``: how the filter keys step through choices."""
    if current is None:
        return options[0] if options else None
    position = options.index(current) if current in options else -1
    return options[position + 1] if position + 1 < len(options) else None
