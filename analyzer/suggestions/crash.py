"""CRS*: the fix for what stopped the program, as a patch where it is mechanical.

- a data-dependent branch under ``fullgraph=True`` (CRS001, GB0170): the branch suggester's torch.where /
  torch.cond rewrite of the ``if`` at the finding's line;
- a violated ``mark_dynamic`` constraint (CRS006): ``torch._dynamo.maybe_mark_dynamic`` for the ``mark_dynamic``
  call of the specialised input;
- a CUDA-graph output overwritten by a later replay (CRS007): ``torch.compiler.cudagraph_mark_step_begin()`` as the
  first statement of the loop around the compiled call, so that all calls of one iteration are one step.
Anything else: the rule's fix line (NoPatch says why there is no patch).
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.evidence import CrashEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions import generic
from tdiag.analyzer.suggestions.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    replace_nodes,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.syntax import dotted

BRANCH_IDS = {"GB0170"}
_SUBJECT = re.compile(r"^L\['([A-Za-z_]\w*)'\]")
MARK_STEP_WHY = (
    "CUDA graphs reuse their output memory on every replay, and torch starts a new step at every call of a compiled "
    "function unless told where steps begin. Marking the start of each iteration makes the calls inside it one "
    "step, so an output read later in the same iteration is still valid; keep no output across iterations "
    "without .clone()."
)
MAYBE_WHY = (
    "mark_dynamic promises that the code works for every size of the dimension, so torch raises when the code "
    "specialises it. maybe_mark_dynamic asks for the same dynamic shape where the code allows it and lets torch "
    "specialise (and recompile per size) where it does not."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    if finding.code == "CRS001" and finding.gb_id in BRANCH_IDS:
        from tdiag.analyzer.suggestions import branch

        return branch.suggest(finding, ctx)
    if finding.code == "CRS006":
        return _maybe_mark_dynamic(finding, ctx)
    if finding.code == "CRS007":
        return _mark_step(finding, ctx)
    raise NoPatch("no mechanical rewrite for this cause: follow the fix line")


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    return generic.suggest(finding, ctx)


# --- maybe_mark_dynamic -------------------------------------------------------------------------------------------
def _maybe_mark_dynamic(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    evidence = evidence_as(finding.evidence, CrashEvidence)
    call_path = (evidence.call or "").rpartition(":")[0] or finding.path
    tree = ctx.tree(call_path)
    subject = _SUBJECT.match(evidence.detail or "")
    calls = [c for c in tree.nodes(cst.Call) if (dotted(c.func) or "").endswith("mark_dynamic")
             and not (dotted(c.func) or "").endswith("maybe_mark_dynamic")]
    if subject is not None:
        named = [c for c in calls if c.args and isinstance(c.args[0].value, cst.Name)
                 and c.args[0].value.value == subject.group(1)]
        calls = named or calls
    if not calls:
        raise NoPatch(f"no mark_dynamic call in the recorded {call_path}")
    replacements = {}
    for call in calls:
        func = call.func
        if isinstance(func, cst.Attribute):
            replacements[func] = func.with_changes(attr=cst.Name("maybe_mark_dynamic"))
        elif isinstance(func, cst.Name):
            raise NoPatch("mark_dynamic is imported by name: import maybe_mark_dynamic and call it instead")
    lines = ", ".join(str(tree.start_line(c)) for c in calls)
    return Suggestion(
        title=f"Use torch._dynamo.maybe_mark_dynamic instead of mark_dynamic ({call_path}:{lines})",
        why=MAYBE_WHY,
        patch=patch_for(tree, replace_nodes(tree.module, replacements)),
        alternatives=["remove the code that depends on the exact size of the dimension, and keep mark_dynamic"],
    )


# --- cudagraph_mark_step_begin -------------------------------------------------------------------------------------
def _mark_step(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = next((s for s in tree.nodes(cst.SimpleStatementLine) if tree.start_line(s) == finding.line), None)
    if statement is None:
        raise NoPatch("no statement starts on the compiled call's line of the recorded source")
    loop = tree.enclosing(statement, (cst.For, cst.While))
    if loop is None:
        raise NoPatch("the compiled call is not in a loop: clone the output you keep (out = model(x).clone())")
    body = loop.body
    if not isinstance(body, cst.IndentedBlock):
        raise NoPatch("the loop body is on the loop's line: clone the output you keep instead")
    if any("cudagraph_mark_step_begin" in tree.code(s) for s in body.body[:1]):
        raise NoPatch("the loop already marks each step: clone the output you keep (out = model(x).clone())")
    torch = torch_alias(tree)
    mark = cst.parse_statement(f"{torch}.compiler.cudagraph_mark_step_begin()\n", config=tree.module.config_for_parsing)
    new_module = tree.module.deep_replace(body, body.with_changes(body=[mark, *body.body]))
    return Suggestion(
        title="Call torch.compiler.cudagraph_mark_step_begin() at the start of each iteration",
        why=MARK_STEP_WHY,
        patch=patch_for(tree, with_torch_import(tree, new_module)),
        alternatives=["clone the output you keep: out = model(x).clone()"],
    )
