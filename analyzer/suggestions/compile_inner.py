"""DST002: ``torch.compile(DDP(model))`` compiled nothing; compile the inner model before wrapping it."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.distributed import wrapper_compile_calls
from tdiag.analyzer.evidence import DistributedEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes

WHY = (
    "DDP's forward breaks the graph before it calls your model; after that break Dynamo does not compile torch's "
    "own module code (nn.Sequential, nn.TransformerEncoder, ...) entered from eager code, so nothing is compiled. "
    "Compiling the model itself and wrapping the compiled module keeps DDP's hooks and compiles every layer."
)
ALTERNATIVES = [
    "wrap the container in your own nn.Module (class Net(nn.Module): forward calls self.body(x)) and keep "
    "torch.compile(DDP(Net())): Dynamo compiles your forward, and DDPOptimizer splits it at bucket boundaries",
]


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    evidence = evidence_as(finding.evidence, DistributedEvidence)
    if evidence.wrapper != "DistributedDataParallel":
        return _not_wrapped(finding)
    path = (evidence.compile_line or "").rpartition(":")[0] or finding.path
    tree = ctx.tree(path)
    outer = wrapper_compile_calls(tree.module)
    if len(outer) != 1:
        raise NoPatch("no single torch.compile(DDP(...)) call in the recorded source")
    call = outer[0]
    wrapper = call.args[0].value
    if not wrapper.args or wrapper.args[0].keyword is not None or wrapper.args[0].star:
        raise NoPatch("the wrapped model is not the wrapper's first positional argument")
    inner = wrapper.args[0]
    compiled = call.with_changes(args=[inner.with_changes(comma=call.args[0].comma), *call.args[1:]])
    if len(call.args) == 1:
        compiled = compiled.with_changes(args=[inner.with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    rewrapped = wrapper.with_changes(args=[inner.with_changes(value=compiled), *wrapper.args[1:]])
    patch = patch_for(tree, replace_nodes(tree.module, {call: rewrapped}))
    return Suggestion(
        title="Compile the model, then wrap it: DDP(torch.compile(model))",
        why=WHY,
        patch=patch,
        alternatives=list(ALTERNATIVES),
    )


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    if evidence_as(finding.evidence, DistributedEvidence).wrapper != "DistributedDataParallel":
        return _not_wrapped(finding)
    return Suggestion(
        title="Compile the model before wrapping it (DDP(torch.compile(model))), or wrap it in your own nn.Module",
        why=WHY,
        alternatives=list(ALTERNATIVES),
    )


def _not_wrapped(finding: Finding) -> Suggestion:
    return Suggestion(title=finding.fix[:1].upper() + finding.fix[1:], why=finding.evidence.reason if finding.evidence else "",
                      patch_note="no patch: the cause is elsewhere (see the other findings of this run)")
