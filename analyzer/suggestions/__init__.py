"""Suggestions: for each finding, a title, why it helps, and where the code allows it a patch against the user's source.

One module per kind of suggestion; ``dispatch`` picks it by rule code. Patches are built from the source snapshot in
the record with libcst and are unified diffs with ``a/PATH``/``b/PATH`` headers (PATH relative to the project root,
so ``git apply`` / ``patch -p1`` work from there). ``patch_applies``/``current_suggestion`` check a patch against
the file as it is now, for renderers and ``apply`` commands.
"""

from __future__ import annotations

from tdiag.analyzer.suggestions.dispatch import attach_suggestions, suggest
from tdiag.analyzer.suggestions.helpers.current import current_suggestion, patch_applies
from tdiag.analyzer.suggestions.helpers.diff import apply_patch, make_patch

__all__ = ["apply_patch", "attach_suggestions", "current_suggestion", "make_patch", "patch_applies", "suggest"]
