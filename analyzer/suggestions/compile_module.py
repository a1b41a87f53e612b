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
the decorator goes, ``compiled_NAME = torch.compile(NAME, <the decorator's arguments>)`` follows the assignment,
and the function calls ``compiled_NAME(...)``: the module's other callers stay as written.
"""

from __future__ import annotations

import re
from collections import Counter

import libcst as cst

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for

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


def may_apply(finding: Finding, analysis) -> bool:
    """Whether compiling the model could be this finding's answer, read from the record alone (no syntax tree):
    the end-of-run summary asks it to know which findings' fix lines a suggestion words (analyzer/finish.py).
    A skipped call with a torch-native equivalent is answered by the equivalent (Python's random.random ->
    torch.rand: the work stays in the graph), and a break inside a library the line calls by that library's fix
    (kl_divergence's registry lookup: the closed-form KL), never by moving the compile."""
    from tdiag.analyzer.library_causes import cause_frame, match
    from tdiag.analyzer.native_equivalents import equivalent

    function = finding.function
    if finding.family != "BRK" or finding.by_design or not function or function.startswith("<") \
            or function == "forward" or function.startswith("torch_dynamo_resume"):
        return False
    if match(finding) is not None or cause_frame(finding) is not None:
        return False  # the break is inside a library the line calls: its own fix is applied from this line
    skipped = finding.evidence.skipped_call() if finding.evidence is not None else None
    if skipped is not None and equivalent(skipped.name) is not None:
        return False
    lines = [b.site.line for b in analysis.breaks
             if b.site.path == finding.path and b.site.function == function and b.site.line]
    return bool(lines) and min(lines) == finding.line


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """The compile-the-model suggestion for ``finding``, or None where it does not apply."""
    function = finding.function
    if not may_apply(finding, ctx.analysis):
        return None
    module = module_called(ctx, function, finding.path)
    if module is None:
        return None
    try:
        patch, compile_call = _patch(ctx, function, finding.path, module)
    except NoPatch:
        return None  # words without the patch would name a statement the user's file cannot take as written
    target = f"`{module}`" if "." not in module else f"the module `{module}`"
    return Suggestion(
        title=f"Compile {target}, not {function}",
        fix=(f"compile the model {function} calls, not {function}: {function}'s own code after the model (this "
             f"line and the rest) is what breaks; compile {target} where {function} calls it (`{compile_call}`, "
             f"called in {function}) and remove torch.compile from {function}, so the model's forward and backward "
             f"compile whole and {function}'s Python runs eagerly, as written"),
        why=(f"{function} is compiled whole, and the model {target} traces into its first graph; the breaks are in "
             f"{function}'s own code after it, each cutting the step into more pieces (and the code after a break "
             "recompiles for the values carried across it). Compiling the model is torch's 'compile regions': the "
             "same graphs for the model, forward and backward, and none of the breaks."),
        patch=patch,
        alternatives=["remove each break in the function (the other findings at its lines)"],
    )


class _CallsTo(cst.CSTTransformer):
    """Calls of the module ``old(...)`` become calls of ``new(...)``; other uses (``old.parameters()``) stay."""

    def __init__(self, old: str, new: str):
        self.old, self.new, self.count = old, new, 0

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if isinstance(updated.func, cst.Name) and updated.func.value == self.old:
            self.count += 1
            return updated.with_changes(func=cst.Name(self.new))
        return updated


def _patch(ctx: SuggestionContext, function: str, path: str, module: str) -> tuple[str, str]:
    """(the patch, the compile statement it writes): the decorator on ``function`` removed, ``compiled_<module> =
    torch.compile(module, ...)`` after ``module``'s one module-level assignment, and ``function``'s calls of the
    module made through it. The module's other callers (an evaluation under no_grad) stay eager as written:
    compiling the module itself would compile them too (a recompile for grad mode, another graph: noisy_metric's
    evaluation)."""
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
    compiled = tree.fresh_name(f"compiled_{module}", tree.module)
    calls = _CallsTo(module, compiled)
    body = func.body.visit(calls)
    if not calls.count:
        raise NoPatch(f"{function} does not call `{module}(...)` itself")
    decorator = decorators[0].decorator
    args = decorator.args if isinstance(decorator, cst.Call) else ()
    call = cst.Call(func=decorator.func if isinstance(decorator, cst.Call) else decorator,
                    args=[cst.Arg(cst.Name(module)), *args])
    statement = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(compiled))], call)])
    new_body = []
    for s in tree.module.body:
        new_body.append(func.with_changes(decorators=[], body=body) if s is func else s)
        if s is assigns[0]:
            new_body.append(statement)
    new = tree.module.with_changes(body=new_body)
    return patch_for(tree, new), cst.Module([]).code_for_node(statement).strip()
