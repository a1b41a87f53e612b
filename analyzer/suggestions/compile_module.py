"""A function compiled whole around a model, broken by its own Python: compile the model, not the function.

Users compile the function that calls their model: a training step (forward, ``loss.backward()``, an optimizer step
on every fourth call), a transcribe or decode function (the model, then a Python loop over its output). The model
traces into the function's first graph; what breaks is the function's own code after it (the backward, the
optimizer, ``.item()``/``.tolist()``, a list filtered by tensor values), and each break makes more pieces and
recompiles on the values carried across it. Compiling the model itself (``model = torch.compile(model)``, torch's
"compile regions") gives the model's graph, forward and backward, with none of the breaks, and leaves the Python
eager, where it runs as written: the expert's answer in blind batches 5 and 6 (beam search, gradient accumulation,
greedy CTC decoding). Moving only the backward out of such a step while the optimizer stays inside would change the
training; compiling the model changes nothing the program computes.

Fires for a break at the function's own line (not a library's, not by design), in a named function that is not a
module's ``forward``, whose first graph holds a module's parameters; the earliest such break of the function carries
it. The patch, where the function is compiled by its decorator and the module is a module-level name assigned once:
the decorator goes, and ``NAME = torch.compile(NAME, <the decorator's arguments>)`` follows the assignment.
"""

from __future__ import annotations

import re
from collections import Counter

import libcst as cst

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes

# a module's parameter or buffer as Dynamo names a graph input: G_model_modules_net_modules_0_parameters_weight_,
# L_self_modules_encoder_parameters_bias_
_PARAMETER = re.compile(r"\b([LG])_(\w+?)_(modules_\w+?_)?(?:parameters|buffers)_")
_SUBMODULE = re.compile(r"^modules_(\w+?)_")


def module_called(ctx: SuggestionContext, function: str, path: str) -> str | None:
    """The module whose parameters the first graph of ``function`` holds most of (``model``, ``self.encoder``)."""
    for graph in sorted(ctx.analysis.graphs, key=lambda g: g.compile_id):
        if graph.code_name != function or graph.path != path or not graph.graph_code_ref:
            continue
        code = ctx.analysis.code.get(graph.graph_code_ref) or ""
        roots = Counter()
        for scope, name, sub in _PARAMETER.findall(code):
            if name == "self" and sub:
                inner = _SUBMODULE.match(sub)
                roots[f"self.{inner.group(1)}" if inner else "self"] += 1
            elif name != "self":
                roots[name] += 1
        return roots.most_common(1)[0][0] if roots else None
    return None


def _first_break_line(ctx: SuggestionContext, function: str, path: str) -> int | None:
    lines = [b.site.line for b in ctx.analysis.breaks
             if b.site.path == path and b.site.function == function and b.site.line]
    return min(lines) if lines else None


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """The compile-the-model suggestion for ``finding``, or None where it does not apply."""
    function = finding.function
    if finding.family != "BRK" or finding.by_design or not function or function.startswith("<") \
            or function == "forward" or function.startswith("torch_dynamo_resume"):
        return None
    if _first_break_line(ctx, function, finding.path) != finding.line:
        return None
    module = module_called(ctx, function, finding.path)
    if module is None:
        return None
    compile_call = "torch.compile(...)"
    try:
        patch, compile_call = _patch(ctx, function, finding.path, module)
    except NoPatch as why_not:
        patch, note = None, str(why_not)
    else:
        note = None
    target = f"`{module}`" if "." not in module else f"the module `{module}`"
    return Suggestion(
        title=f"Compile {target}, not {function}",
        fix=(f"compile the model {function} calls, not {function}: {function}'s own code after the model (this "
             f"line and the rest) is what breaks; compile {target} (`{module} = {compile_call.replace('...', module)}`) "
             f"and remove torch.compile from {function}, so the model's forward and backward compile whole and "
             f"{function}'s Python runs eagerly, as written"),
        why=(f"{function} is compiled whole, and the model {target} traces into its first graph; the breaks are in "
             f"{function}'s own code after it, each cutting the step into more pieces (and the code after a break "
             "recompiles for the values carried across it). Compiling the model is torch's 'compile regions': the "
             "same graphs for the model, forward and backward, and none of the breaks."),
        patch=patch,
        patch_note=note,
        alternatives=["remove each break in the function (the other findings at its lines)"],
    )


def _patch(ctx: SuggestionContext, function: str, path: str, module: str) -> tuple[str, str]:
    """(the patch, the compile call it writes): the decorator on ``function`` removed, ``module =
    torch.compile(module, ...)`` after ``module``'s one module-level assignment."""
    if "." in module:
        raise NoPatch(f"{module} is an attribute: compile it where it is assigned")
    tree = ctx.tree(path)
    func = tree.function_def(function, None)
    if func is None:
        raise NoPatch(f"no function {function} in {path}")
    decorators = [d for d in func.decorators if tree.qualified(
        d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) == "torch.compile"]
    if func not in tree.module.body or len(decorators) != 1 or len(func.decorators) != 1:
        raise NoPatch(f"{function} is not compiled by one @torch.compile decorator alone")
    assigns = [s for s in tree.module.body if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1
               and isinstance(s.body[0], cst.Assign)
               and any(isinstance(t.target, cst.Name) and t.target.value == module for t in s.body[0].targets)]
    if len(assigns) != 1:
        raise NoPatch(f"`{module}` is not assigned once at module level")
    decorator = decorators[0].decorator
    args = decorator.args if isinstance(decorator, cst.Call) else ()
    call = cst.Call(func=decorator.func if isinstance(decorator, cst.Call) else decorator,
                    args=[cst.Arg(cst.Name(module)), *args])
    compile_call = cst.Module([]).code_for_node(call)
    statement = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(module))], call)])
    body = []
    for s in tree.module.body:
        if s is func:
            body.append(func.with_changes(decorators=[]))
        else:
            body.append(s)
        if s is assigns[0]:
            body.append(statement)
    new = tree.module.with_changes(body=body)
    return patch_for(tree, new), compile_call
