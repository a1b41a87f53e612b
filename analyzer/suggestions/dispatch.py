"""Rule code -> suggestion module, and attaching suggestions to findings."""

from __future__ import annotations

import importlib
import logging

from tdiag.analyzer.model import Analysis, Finding, Suggestion
from tdiag.analyzer.suggestions.context import NoPatch, SuggestionContext

log = logging.getLogger(__name__)

# Modules are imported on first use: a record with no breaks never parses a syntax tree.
SUGGESTERS = {
    "BRK001": "branch",
    "BRK002": "scalar_item",
    "BRK003": "to_python",
    "BRK004": "logging_call",
    "BRK005": "untraceable_call",
    "BRK006": "frame_skipped",
    "RCP001": "mark_dynamic",
    "DYN001": "mark_dynamic",
    "RCP002": "scalar_arg",
    "RCP003": "mode_flip",
    "RCP004": "dtype_change",
    "RCP005": "recompile_limit",
}


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """The suggestion for one finding. Never raises: when a patch cannot be built the note says why."""
    from tdiag.analyzer.suggestions import generic

    name = SUGGESTERS.get(finding.code)
    if name is None:
        return generic.suggest(finding, ctx)
    module = importlib.import_module(f"{__package__}.{name}")
    try:
        return module.suggest(finding, ctx)
    except NoPatch as why_not:
        fallback = module.fallback(finding, ctx) if hasattr(module, "fallback") else generic.suggest(finding, ctx)
        if fallback.patch is None and not fallback.patch_note:
            fallback.patch_note = str(why_not)
        return fallback
    except Exception as bug:  # a suggestion must never cost the user their analysis
        log.debug("suggestion for %s at %s:%s failed", finding.code, finding.path, finding.line, exc_info=True)
        fallback = generic.suggest(finding, ctx)
        fallback.patch_note = f"no patch: tdiag could not rewrite this code ({type(bug).__name__}: {bug})"
        return fallback


def attach_suggestions(findings: list[Finding], analysis: Analysis) -> None:
    ctx = SuggestionContext(analysis)
    for finding in findings:
        if finding.suggestion is None:
            finding.suggestion = suggest(finding, ctx)
