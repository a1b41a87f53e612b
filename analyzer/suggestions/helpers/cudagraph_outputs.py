"""Patch kinds for a CUDA-graph output read after a later replay overwrote it (CRS007), best first:

1. ``torch.compiler.cudagraph_mark_step_begin()`` as the first statement of the loop around the compiled call: the
   calls of one iteration are one step, so an output read later in the same iteration is still valid;
2. ``.clone()`` of the output at the user's line (``h1 = model(x).clone()``): the kept value is copied out of the
   graph's memory before the next replay reuses it. It costs a copy per call, and works where there is no loop to
   mark or the loop already marks each step (an output kept across iterations).

Each is a candidate ``tdiag fix --verify`` runs: the program must now run to its end and print what it printed.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    first_candidate,
    patch_for,
    torch_alias,
    with_torch_import,
)

MARK_STEP_WHY = (
    "CUDA graphs reuse their output memory on every replay, and torch starts a new step at every call of a compiled "
    "function unless told where steps begin. Marking the start of each iteration makes the calls inside it one "
    "step, so an output read later in the same iteration is still valid; keep no output across iterations "
    "without .clone()."
)
CLONE_WHY = (
    "CUDA graphs reuse their output memory on every replay: a value kept past the next call of the compiled "
    "function must be copied out first. .clone() copies it (one copy per call, on the device)."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = next((s for s in tree.nodes(cst.SimpleStatementLine) if tree.start_line(s) == finding.line), None)
    if statement is None:
        raise NoPatch("no statement starts on the compiled call's line of the recorded source")
    return first_candidate((lambda: _mark_step(tree, statement), lambda: _clone(tree, statement)))


def _mark_step(tree, statement: cst.SimpleStatementLine) -> Suggestion:
    loop = tree.enclosing(statement, (cst.For, cst.While))
    if loop is None:
        raise NoPatch("the compiled call is not in a loop: no iteration to mark")
    body = loop.body
    if not isinstance(body, cst.IndentedBlock):
        raise NoPatch("the loop body is on the loop's line")
    if any("cudagraph_mark_step_begin" in tree.code(s) for s in body.body[:1]):
        raise NoPatch("the loop already marks each step: the output is kept across iterations")
    torch = torch_alias(tree)
    mark = cst.parse_statement(f"{torch}.compiler.cudagraph_mark_step_begin()\n", config=tree.module.config_for_parsing)
    new_module = tree.module.deep_replace(body, body.with_changes(body=[mark, *body.body]))
    return Suggestion(
        title="Call torch.compiler.cudagraph_mark_step_begin() at the start of each iteration",
        why=MARK_STEP_WHY,
        patch=patch_for(tree, with_torch_import(tree, new_module)),
        alternatives=["clone the output you keep: out = model(x).clone()"],
    )


def _clone(tree, statement: cst.SimpleStatementLine) -> Suggestion:
    """``name = call(...)`` -> ``name = call(...).clone()``: only a single assignment of one call's result, where the
    kept value is one tensor (a tuple or a model output object has no ``.clone()``)."""
    (small,) = statement.body if len(statement.body) == 1 else (None,)
    if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.value, cst.Call):
        raise NoPatch("the line does not assign one call's result to one name")
    if not isinstance(small.targets[0].target, cst.Name):
        raise NoPatch("the call's result is unpacked or stored in an attribute: clone the tensor you keep")
    value = small.value
    if isinstance(value.func, cst.Attribute) and value.func.attr.value == "clone":
        raise NoPatch("the output is already cloned")
    cloned = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("clone")))
    new_module = tree.module.deep_replace(value, cloned)
    name = small.targets[0].target.value
    return Suggestion(
        title=f"Clone the compiled call's output you keep: {name} = ....clone()",
        why=CLONE_WHY,
        patch=patch_for(tree, new_module),
    )
