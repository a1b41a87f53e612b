"""Is a recorded patch still good for the file as it is now? Renderers and patch applications ask here."""

from __future__ import annotations

import dataclasses

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.diff import apply_patch

SOURCE_CHANGED = "source changed since the record: the patch no longer applies; rerun `tdiag run` for a fresh one"


def patch_applies(finding: Finding, current_text: str) -> bool:
    """True when the finding has a patch and it applies cleanly to ``current_text``."""
    suggestion = finding.suggestion
    return bool(suggestion and suggestion.patch) and apply_patch(current_text, suggestion.patch) is not None


def current_suggestion(finding: Finding, current_text: str | None) -> Suggestion | None:
    """The finding's suggestion as it should be shown against ``current_text`` (None: the file is not at hand,
    show it as recorded). A patch that no longer applies is dropped and ``patch_note`` says why."""
    suggestion = finding.suggestion
    if suggestion is None or suggestion.patch is None or current_text is None:
        return suggestion
    if apply_patch(current_text, suggestion.patch) is not None:
        return suggestion
    return dataclasses.replace(suggestion, patch=None, patch_note=SOURCE_CHANGED)
