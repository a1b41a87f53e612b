"""RCP003: a recompile because `self.training` (or another mode flag) flipped."""

from __future__ import annotations

from tdiag.analyzer.evidence import RecompileEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext

WHY = (
    "Modules behave differently in train and eval mode (dropout, batch norm), so each mode is its own graph. "
    "That costs one compile per mode; switching modes inside the hot loop only costs a cache lookup afterwards, "
    "but every extra flag value multiplies the graphs and counts toward the recompile limit."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    subject = evidence_as(finding.evidence, RecompileEvidence).subject or "self.training"
    return Suggestion(
        title=f"Expect one graph per mode ({subject}); keep modes fixed in the hot loop",
        why=WHY,
        alternatives=[
            "run all training steps, then all evaluation, instead of alternating per batch",
            "compile per mode: one torch.compile'd callable used only for training and another only for evaluation, "
            "so each stays warm",
            "for evaluation, wrap the call in torch.no_grad() as well so autograd does not add a third variant",
        ],
    )
