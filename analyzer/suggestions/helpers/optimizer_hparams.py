"""RCP002 on an optimizer hyper-parameter that changes (an LR scheduler, beta warm-up) under a compiled ``step``.

A compiled ``optimizer.step`` guards on ``param_groups[i]['lr']`` as a Python float, so every scheduler step
recompiles it (pytorch#133898; betas: pytorch#163093). Given as a 0-d tensor, the value is data: schedulers update
it in place and one graph serves every value. The patch wraps the keyword in the optimizer's construction in
``torch.tensor(...)`` (each element for ``betas``); a hyper-parameter left at its default is not patched.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.helpers import parse_template_expression
from tdiag.analyzer.evidence import RecompileEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    replace_nodes,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import dotted

_SUBJECT = re.compile(r"""^self\.param_groups\[\d+\]\[['"](?P<key>lr|betas)['"]\]""")
WHY = (
    "A compiled optimizer step guards on its hyper-parameters as Python numbers, so a learning-rate schedule "
    "recompiles the step at every change (then makes it dynamic, or hits the recompile limit). As 0-d tensors they "
    "are inputs of one graph; schedulers update tensor hyper-parameters in place."
)


def applies(finding: Finding) -> bool:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    return (isinstance(finding.evidence, RecompileEvidence) and bool(ev.frame and ev.frame.endswith(".step"))
            and bool(_SUBJECT.match(ev.subject or "")))


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    key = _SUBJECT.match(ev.subject).group("key")
    optimizer = ev.frame.split(".")[0]
    tree = ctx.tree(finding.path)
    torch = torch_alias(tree)
    config = tree.module.config_for_parsing
    replacements = {}
    for call in tree.nodes(cst.Call):
        if tree.qualified(call.func) not in (f"torch.optim.{optimizer}", f"torch.optim.{optimizer.lower()}.{optimizer}"):
            continue
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == key), None)
        if arg is None:
            continue
        values = [e.value for e in arg.value.elements] if key == "betas" and isinstance(arg.value, cst.Tuple) else [arg.value]
        for value in values:
            if isinstance(value, cst.Call) and dotted(value.func) in (f"{torch}.tensor", f"{torch}.as_tensor"):
                continue
            replacements[value] = parse_template_expression(
                "{torch}.tensor({value})", config=config, torch=cst.Name(torch), value=value
            )
    if not replacements:
        raise NoPatch(f"no torch.optim.{optimizer}(..., {key}=...) in {finding.path} to turn into a tensor")
    patch = patch_for(tree, with_torch_import(tree, replace_nodes(tree.module, replacements)))
    return Suggestion(
        title=f"Give {optimizer} its `{key}` as a tensor",
        why=WHY,
        patch=patch,
        alternatives=["torch.compile the training step without the optimizer, or keep the hyper-parameter constant"],
    )
