"""BRK003: ``.tolist()`` / ``.numpy()`` inside compiled code: the value leaves torch, so the graph ends there."""

from __future__ import annotations

from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext

WHY = (
    "`.tolist()` and `.numpy()` copy the tensor to host Python objects, which Dynamo cannot trace: the graph ends, "
    "the device syncs, and whatever the Python code does with the values runs eagerly."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    source = (evidence_as(finding.evidence, BreakEvidence).source or "").strip()
    method = ".numpy()" if ".numpy(" in source else ".tolist()"
    return Suggestion(
        title=f"Keep the values as a tensor instead of {method}",
        why=WHY,
        patch_note="no patch: the code consuming the Python values has to be rewritten as tensor operations",
        alternatives=[
            "vectorise: replace the loop or list logic over the values with tensor operations",
            f"move {method} (and the code using it) after the compiled function returns",
            "for NumPy code, run it on the tensor through torch's NumPy tracing (call NumPy functions on tensors "
            "inside the compiled function instead of converting with .numpy())",
            "for integer values used as sizes, torch._dynamo.config.capture_scalar_outputs = True "
            "(and capture_dynamic_output_shape_ops) lets Dynamo trace them symbolically",
        ],
    )
