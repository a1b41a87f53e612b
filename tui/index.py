"""Lookups computed once per Analysis, so screens never rescan thousands of findings on a key press."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import Any

from tdiag.analyzer.model import Analysis, Finding
from tdiag.analyzer.rules import get_rule
from tdiag.reports.cost_heat import line_heat

from tdiag.lean_dataclass import lean_dataclass

# Gutter mark kinds, in display priority: a line that broke a graph is shown as a break even if it also feeds kernels.
MARK_BREAK = "break"
MARK_RECOMPILE = "recompile"
MARK_KERNEL = "kernel"
MARK_FINDING = "finding"
MARK_PRIORITY = (MARK_BREAK, MARK_RECOMPILE, MARK_FINDING, MARK_KERNEL)

@lean_dataclass
class LineMarks:
    kinds: set[str] = field(default_factory=set)
    findings: list[int] = field(default_factory=list)  # indexes into Analysis.findings

    @property
    def primary(self) -> str:
        return next(k for k in MARK_PRIORITY if k in self.kinds)


class AnalysisIndex:
    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.search_text = [_search_text(f) for f in analysis.findings]
        self.families = sorted({f.family for f in analysis.findings})
        self.severities = [s for s in ("error", "warning", "info") if any(f.severity == s for f in analysis.findings)]
        self.ranks = list(analysis.run.ranks)  # ints, as in Finding.ranks and GraphKey
        self.marks = _build_marks(analysis)
        self.heat = line_heat(analysis)  # path -> line -> measured time (records with a measured window only)
        # Filter indexes: each value is the set of finding indexes it keeps, so a filter is a set intersection.
        self.by_family = _rows_by(analysis.findings, lambda f: (f.family,))
        self.by_severity = _rows_by(analysis.findings, lambda f: (f.severity,))
        self.by_rank = _rows_by(analysis.findings, lambda f: [r for r, n in f.ranks.items() if n > 0])
        self._orders: dict[str, list[int]] = {}

    def order(self, sort: str, key: Callable[[Finding], Any] | None = None) -> list[int]:
        """Every finding index sorted by ``key`` (stable; no key: Analysis order, which is impact order), cached
        per sort name, so changing a filter never sorts again."""
        order = self._orders.get(sort)
        if order is None:
            findings = self.analysis.findings
            order = list(range(len(findings)))
            if key is not None:
                order.sort(key=lambda i: key(findings[i]))
            self._orders[sort] = order
        return order

    @property
    def multi_rank(self) -> bool:
        return len(self.ranks) > 1

    def marked_paths(self) -> list[str]:
        """Every file worth showing: recorded sources first, then files only known from findings."""
        paths = list(self.analysis.sources)
        paths += sorted(p for p in self.marks if p not in self.analysis.sources)
        return paths


def _rows_by(findings: list[Finding], values: Callable[[Finding], Iterable[str]]) -> dict[str, frozenset[int]]:
    rows: dict[str, set[int]] = defaultdict(set)
    for i, finding in enumerate(findings):
        for value in values(finding):
            rows[value].add(i)
    return {value: frozenset(found) for value, found in rows.items()}


def _search_text(finding: Finding) -> str:
    return " ".join((finding.code, finding.name, finding.severity, finding.message, finding.path,
                     str(finding.line), finding.function or "")).lower()


def _build_marks(analysis: Analysis) -> dict[str, dict[int, LineMarks]]:
    marks: dict[str, dict[int, LineMarks]] = defaultdict(lambda: defaultdict(LineMarks))
    for i, finding in enumerate(analysis.findings):
        entry = marks[finding.path][finding.line]
        entry.findings.append(i)
        rule = get_rule(finding.code)
        entry.kinds.add(rule.mark if rule is not None else MARK_FINDING)  # each rule says how its line is marked
    for graph_break in analysis.breaks:
        marks[graph_break.site.path][graph_break.site.line].kinds.add(MARK_BREAK)
    for recompile in analysis.recompiles:
        if recompile.call_site is not None:
            marks[recompile.call_site.path][recompile.call_site.line].kinds.add(MARK_RECOMPILE)
        for failure in recompile.failures:
            if failure.path and failure.line:
                marks[failure.path][failure.line].kinds.add(MARK_RECOMPILE)
    for graph in analysis.graphs:
        for kernel in graph.kernels:
            for ref in kernel.source_lines:
                marks[ref.path][ref.line].kinds.add(MARK_KERNEL)
    return {path: dict(lines) for path, lines in marks.items()}
