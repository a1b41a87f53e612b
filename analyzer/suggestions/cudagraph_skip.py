"""CGR001: a graph CUDA graphs skipped. Where torch's reason is a host read inside the graph (``.item()``, which
``capture_scalar_outputs`` keeps in it as ``aten._local_scalar_dense``: CUDA graphs cannot capture the copy to the
host), the patches that take the read out of the compiled function (scalar_item.read_elsewhere: keep it a tensor,
read it after the call, return it), in the order `tdiag fix --verify` tries them. The other skips (an input the graph
mutates, a CPU tensor, a dynamic graph) get their words: which line to change depends on where the tensor comes
from, which the record does not say."""

from __future__ import annotations

from tdiag.analyzer.evidence import CudaGraphEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions import scalar_item
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, first_candidate

HOST_READ_OPS = {"aten._local_scalar_dense.default": ("item",), "aten._local_scalar_dense": ("item",)}


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    evidence = evidence_as(finding.evidence, CudaGraphEvidence)
    methods = HOST_READ_OPS.get(evidence.op or "") if evidence.skip_kind == "incompatible_op" else None
    if methods is None:
        raise NoPatch(f"no patch for this skip ({evidence.skip_kind or 'unknown'}): {finding.fix}")
    tree = ctx.tree(finding.path)
    call = scalar_item.host_call_on_line(tree, finding, methods)
    try:
        return scalar_item.keep_tensor(tree, call)
    except NoPatch as why_not:
        kept_words = f"keep it a tensor (no patch: {why_not})"
    first = first_candidate(scalar_item.read_elsewhere(tree, call), [kept_words])
    first.alternatives = [kept_words]
    return first
