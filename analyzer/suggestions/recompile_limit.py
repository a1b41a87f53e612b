"""RCP005: the recompile limit was hit; from then on the function runs eagerly, uncompiled, on every call."""

from __future__ import annotations

import re
from collections import Counter

from tdiag.analyzer.evidence import RecompileLimitEvidence, evidence_as
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    failures = [f for f in evidence_as(finding.evidence, RecompileLimitEvidence).failures if f]
    cause = user_words(Counter(failures).most_common(1)[0][0]) if failures else "guards that kept failing"
    frame = finding.function or "this function"
    return Suggestion(
        # the guard that kept failing is the cause: its own recompile finding (RCP001-RCP006) carries the fix
        fix=f"fix what recompiles {frame}, not the limit: {_changing(failures) or f'`{cause}` failed'} (its RCP "
            "finding names the change)" if failures else None,
        title=f"RECOMPILE LIMIT HIT: {frame} is no longer compiled and runs eagerly on every call",
        why=(
            f"Each call brought a value the compiled graphs were not guarded for (e.g. `{cause}`), so Dynamo "
            "compiled again until torch._dynamo.config.recompile_limit; after that it stops compiling this code and "
            "all later calls run in eager mode, silently losing every speed-up. Fix the cause below rather than "
            "raising the limit."
        ),
        alternatives=[
            f"remove the cause: `{cause}` changes between calls; see the RCP findings at this frame for a rewrite",
            "pass values that change per call as tensors, and mark changing sizes dynamic (mark_dynamic)",
            "only if the variants are few and intended: raise torch._dynamo.config.recompile_limit",
        ],
    )


def _changing(failures: list[str]) -> str | None:
    """``self.calls == 0``, ``self.calls == 1``, ...: "`self.calls` took a new value on every call"."""
    sides = {re.split(r" == ", user_words(f), maxsplit=1)[0] for f in failures if " == " in f}
    if len(sides) == 1 and all(" == " in f for f in failures):
        return f"`{sides.pop()}` took a new value on every call"
    return None
