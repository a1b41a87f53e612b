"""RCP004: a recompile because an input's dtype or device changed."""

from __future__ import annotations

from tdiag.analyzer.evidence import RecompileEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext

WHY = (
    "A compiled graph is specialised to its inputs' dtypes and devices; a different one compiles a new graph. "
    "Converting inputs to one dtype/device before the call keeps a single graph."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    subject = ev.subject or "the input"
    change = f" ({ev.expected} -> {ev.actual})" if ev.expected and ev.actual else ""
    return Suggestion(
        title=f"Pass `{subject}` with one dtype/device{change}",
        why=WHY,
        alternatives=[
            f"convert before the call: {subject}.to(dtype=..., device=...) with the dtype the model expects",
            "if both dtypes are needed on purpose (e.g. fp32 eval, bf16 train), accept one graph per dtype",
        ],
    )
