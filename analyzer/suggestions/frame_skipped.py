"""BRK006: Dynamo gave up on a whole frame (typically a graph break inside a loop or a `with` block)."""

from __future__ import annotations

from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.context import SuggestionContext

WHY = (
    "When a graph break happens where Dynamo cannot resume (inside a loop body, a try or with block, a generator), "
    "it skips the whole function: none of it is compiled. Removing that one break compiles the function again."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    ev = evidence_as(finding.evidence, BreakEvidence)
    reason = ev.reason or "an unsupported construct"
    return Suggestion(
        title=f"Remove the break that made Dynamo skip {finding.function or 'this function'} ({reason})",
        why=WHY,
        alternatives=[
            "fix the underlying break (see the other findings at this site for a concrete rewrite)",
            "move the loop body that breaks into its own function, so only that function runs eagerly",
            "compile a smaller function that does not contain the break",
            *ev.hints,
        ],
    )
