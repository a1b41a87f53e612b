"""RCP002 on a module global the compiled function reads (``G['SCALE'] == 1``): each new value the program assigns
recompiles, because Dynamo compiles a global's value in as a constant. The patch makes it an argument: a parameter
of the same name (inside, it shadows the global, so the body is unchanged) and ``NAME=torch.tensor(NAME)`` at every
call in the file, so the value is data and one graph serves them all.

It applies only where the function reads the global purely in tensor arithmetic (a tensor in place of the number
behaves the same there), never assigns or declares it, and every use of the function in its file is a call."""

from __future__ import annotations

import re

import libcst as cst
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
from tdiag.analyzer.suggestions.helpers.hoist_to_caller import (
    calls_of,
    keyword_arg,
    top_level_function,
    with_trailing_comma,
)
from tdiag.analyzer.suggestions.helpers.syntax import descendants
from tdiag.analyzer.suggestions.helpers.tensor_use import only_tensor_arithmetic

GLOBAL = re.compile(r"G\['(\w+)'\]")


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    m = GLOBAL.fullmatch(ev.subject or "")
    if m is None or not ev.frame:
        raise NoPatch("the guarded value is not a module global")
    name = m.group(1)
    if not re.fullmatch(r"-?\d+(\.\d*)?(e-?\d+)?", (ev.expected or "").strip()):
        raise NoPatch(f"`{name}` takes values like {ev.expected}, which are not numbers")
    tree = ctx.tree(ev.frame_path)
    func = tree.function_def(ev.frame, ev.frame_line)
    if func is None or not func.body.body:
        raise NoPatch(f"no function {ev.frame} at {ev.frame_path}:{ev.frame_line} in the recorded source")
    top_level_function(tree, func.body.body[0])  # a module-level function with plain parameters
    if name in tree.params(func) or any(a.name.value == name for g in descendants(func, cst.Global) for a in g.names):
        raise NoPatch(f"`{name}` is a parameter of {ev.frame} or declared global in it")
    reads = [n for n in descendants(func.body, cst.Name) if n.value == name]
    if any(isinstance(tree.parent(n), cst.AssignTarget) for n in reads):
        raise NoPatch(f"{ev.frame} assigns `{name}` itself")
    problem = only_tensor_arithmetic(tree, name, reads) if reads else "the function does not read it by name"
    if problem:
        raise NoPatch(f"a tensor `{name}` would not behave like the number inside {ev.frame}: {problem}")
    torch = torch_alias(tree)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {
        call: call.with_changes(args=[*with_trailing_comma(call.args),
                                      keyword_arg(name, cst.parse_expression(f"{torch}.tensor({name})"))])
        for call in calls_of(tree, func)}
    replacements[func.params] = func.params.with_changes(params=[*with_trailing_comma(func.params.params),
                                                                 cst.Param(cst.Name(name))])
    module = with_torch_import(tree, replace_nodes(tree.module, replacements))
    return Suggestion(
        title=f"Pass the global `{name}` to {ev.frame} as a tensor argument",
        why=("Dynamo compiles a module global's value in as a constant and guards on it, so each new value the "
             "program assigns compiles again. Passed as a 0-d tensor argument (a parameter of the same name, which "
             "the function's body then reads), the value is data and one graph serves every value."),
        patch=patch_for(tree, module),
    )
