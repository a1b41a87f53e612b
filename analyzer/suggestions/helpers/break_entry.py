"""The fix catalogue's entry for a break finding (catalogue/breaks.toml, keyed on torch's GB id and read against the
user's line and torch's words): shared by the candidate dispatch (catalogue_candidates.py) and the builders that
read their entry's data (call_rewrite.py's source and target code)."""

from __future__ import annotations

from tdiag.analyzer.evidence import BreakEvidence
from tdiag.analyzer.model import Finding
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext


def break_entry(finding: Finding, ctx: SuggestionContext):
    """The catalogue's entry for the finding's break: its GB id, read against the user's line and torch's words."""
    from tdiag.analyzer import catalogue

    ev = finding.evidence
    if not isinstance(ev, BreakEvidence):
        return None
    return catalogue.for_break(finding.gb_id, "\n".join((line_code(finding, ctx), ev.reason or "", ev.explanation or "",
                                                         ev.context or "")))


def line_code(finding: Finding, ctx: SuggestionContext) -> str:
    lines = (ctx.analysis.sources.get(finding.path) or "").splitlines()
    return lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
