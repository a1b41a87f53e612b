"""Patch kind: return the operand, do the host operation after the call (the catalogue's "read-after-call" candidate
for an operation Dynamo cannot trace on a value the compiled function computes: ``repr(y)``, ``x.tolist()`` of a
float tensor, a bound method ``Scaler(3).apply`` it cannot rebuild, ``h.register_hook(...)`` on an intermediate).

Two shapes, both the hand fix of torch's own test programs (tests/torch_dynamo_corpus/fixes):

- a value: ``label = repr(y)`` then ``return y + 1, label`` becomes ``return y + 1, y``, and each caller's
  ``out, label = describe(x)`` is followed by ``label = repr(label)``. Where the returned value is computed from the
  read (``vals = t.tolist()`` then ``return [round(v, 2) for v in vals]``), that computation moves too:
  ``w = f(x)`` then ``w = w.tolist()`` and ``w = [round(v, 2) for v in w]``.
- an effect on a local tensor: ``h.register_hook(fn)`` leaves the function, ``h`` is returned as one more value, and
  each caller registers it right after the call (before any backward, which is when a hook runs).

It applies only where the move keeps the program by construction: the line is at the function's top level, the
function ends with ``return``, nothing between the line and the return rebinds what the operand reads, what moves
reads nothing of the function but the operand (builtins and the module's names besides), and every call of the
compiled function keeps its result in names (``a, b = f(x)``), the function not being called uncompiled.
"""

from __future__ import annotations

import builtins

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.read_after_call import _Move, _tuple_call_sites, module_names
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants

KIND = "read-after-call"
# builtins that read a tensor's values on the host, with the tensor as their one argument
HOST_BUILTINS = ("repr", "str", "format", "float", "int", "bool", "list")
HOST_METHODS = ("tolist", "item", "numpy")  # no arguments: a read of the values
_PLACEHOLDER = "__operation_result__"  # stands for the operation's result while checking what else a value reads


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = tree.statement_at(cst.SimpleStatementLine, finding.line)
    if statement is None or len(statement.body) != 1:
        raise NoPatch(f"no single simple statement starts on line {finding.line}")
    function = tree.enclosing_function(statement)
    if function is None or not isinstance(function.body, cst.IndentedBlock) or statement not in function.body.body:
        raise NoPatch("the line is not at the top level of a function")
    body = list(function.body.body)
    ret = body[-1]
    if not (isinstance(ret, cst.SimpleStatementLine) and len(ret.body) == 1 and isinstance(ret.body[0], cst.Return)
            and ret.body[0].value is not None):
        raise NoPatch(f"`{function.name.value}` does not end with `return <value>`")
    effect = _effect_on_local(statement)
    if effect is not None:
        return _effect_patch(tree, function, statement, ret, effect)
    return _value_patch(tree, function, statement, ret)


def _value_patch(tree: SourceTree, function: cst.FunctionDef, statement: cst.SimpleStatementLine,
                 ret: cst.SimpleStatementLine) -> Suggestion:
    value = ret.body[0].value
    elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    inner = statement.body[0]
    if statement is ret:  # the operation is written in the return itself
        operation = next((op for e in elements for op in _operations(e)), None)
        if operation is None:
            raise NoPatch("the return holds no host operation (repr, .tolist(), a bound method) to do after the call")
        holder, removed = operation, None
    else:
        if not (isinstance(inner, cst.Assign) and len(inner.targets) == 1
                and isinstance(inner.targets[0].target, cst.Name) and _operand(inner.value) is not None):
            raise NoPatch("the line does not assign a host operation (repr, .tolist(), ...) to a name")
        operation, holder, removed = inner.value, inner.targets[0].target, statement
        name = holder.value
        uses = [n for n in descendants(function.body, cst.Name) if n.value == name]
        in_return = [n for n in descendants(ret, cst.Name) if n.value == name]
        if len(uses) != len(in_return) + 1:  # the assignment and the return, nothing else reads it
            raise NoPatch(f"`{name}` is used in `{function.name.value}` besides being returned")
        _not_rebound_between(tree, function, statement, ret, _operand(operation))
    readers = [i for i, e in enumerate(elements) if _holds(e, holder)]
    if len(readers) != 1:
        raise NoPatch("the operation's value is not in exactly one of the values the function returns")
    position = readers[0]
    element = elements[position]
    operand = _operand(operation)
    whole = element is operation or (isinstance(holder, cst.Name) and isinstance(element, cst.Name)
                                     and element.value == holder.value)
    # what the returned value reads besides the operation's result: it moves after the call with it
    rest = set() if whole else _free_names(_without(element, holder)) - {_PLACEHOLDER}
    outside = rest - module_names(tree) - set(dir(builtins))
    if outside:
        raise NoPatch(f"the returned value reads `{'`, `'.join(sorted(outside))}` of the function besides the "
                      "operation")
    sites = _tuple_call_sites(tree, function, len(elements) if isinstance(value, cst.Tuple) else None)
    landing = {}
    for site, targets in sites:
        target = targets[position]
        if target in rest:
            raise NoPatch(f"`{target}` at line {tree.start_line(site)} names what the returned value also reads")
        target_name = cst.Name(target)
        lines = [f"{target} = {tree.code(operation.deep_replace(operand, target_name))}"]
        if not whole:
            lines.append(f"{target} = {tree.code(_with_result(element, holder, target))}")
        landing[site] = [cst.parse_statement(line + "\n", config=tree.module.config_for_parsing) for line in lines]
    # the operand alone is returned (its parentheses were the operation's)
    returned = operand.with_changes(lpar=[], rpar=[]) if hasattr(operand, "lpar") else operand
    new_module = _rewritten(tree.module, {element: returned}, landing, removed)
    callers = ", ".join(f"line {tree.start_line(s)}" for s, _ in sites)
    what = tree.code(operation)
    return Suggestion(
        title=f"Return `{tree.code(returned)}` and do `{what}` after the call ({callers})",
        why="Dynamo cannot trace this operation on a value it computes, so the graph ends there. Returned as it is "
        "and done right after the call, the caller gets the same value at the same point of the program, and the "
        "compiled function is one graph.",
        patch=patch_for(tree, new_module),
    )


def _effect_patch(tree: SourceTree, function: cst.FunctionDef, statement: cst.SimpleStatementLine,
                  ret: cst.SimpleStatementLine, tensor: str) -> Suggestion:
    params = set(tree.params(function))
    assigned = _assigned_in(function.body)
    if tensor in params or tensor not in assigned:
        raise NoPatch(f"`{tensor}` is not a value `{function.name.value}` computes")
    call = statement.body[0].value
    outside = _free_names(call) - {tensor} - module_names(tree) - set(dir(builtins))
    if outside:
        raise NoPatch(f"the call reads `{'`, `'.join(sorted(outside))}`, which the caller does not have")
    body = list(function.body.body)
    if tensor in _assigned_in_statements(body[body.index(statement) + 1:-1]):
        raise NoPatch(f"`{tensor}` is assigned again after the line")
    value = ret.body[0].value
    arity = len(value.elements) if isinstance(value, cst.Tuple) else None
    sites = _tuple_call_sites(tree, function, arity)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    landing = {}
    for site, targets in sites:
        name = tensor if not tree.is_bound(tensor, site) and tensor not in targets else tree.fresh_name(f"{tensor}_out", site)
        assign = site.body[0]
        new_target = cst.Tuple([*(cst.Element(cst.Name(t)) for t in targets), cst.Element(cst.Name(name))],
                               lpar=[], rpar=[])
        replacements[site] = site.with_changes(body=[assign.with_changes(targets=[cst.AssignTarget(new_target)])])
        effect = statement.visit(_Rename(tensor, name)).with_changes(leading_lines=())
        landing[site] = [effect]
    elements = list(value.elements) if isinstance(value, cst.Tuple) else [cst.Element(value)]
    elements = [e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for e in elements]
    new_return = ret.with_changes(body=[ret.body[0].with_changes(
        value=cst.Tuple([*elements, cst.Element(cst.Name(tensor))], lpar=[], rpar=[]))])
    replacements[ret] = new_return
    new_module = _rewritten(tree.module, replacements, landing, statement)
    callers = ", ".join(f"line {tree.start_line(s)}" for s, _ in sites)
    return Suggestion(
        title=f"Return `{tensor}` and call `{tree.code(call.func)}` on it after the call ({callers})",
        why="Dynamo cannot keep this call on a tensor it computes inside the graph. Returned, and the call made "
        "right after the compiled call, it acts on the same tensor before anything uses it (a hook runs at the "
        "backward, after the call), and the compiled function is one graph.",
        patch=patch_for(tree, new_module),
    )


def _operand(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The value a host operation works on: ``y`` of ``repr(y)`` or ``y.tolist()``, ``Scaler(3)`` of the bound
    method ``Scaler(3).apply``; None for anything else."""
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value in HOST_BUILTINS and len(node.args) == 1 \
                and node.args[0].keyword is None and not node.args[0].star:
            return node.args[0].value
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in HOST_METHODS and not node.args:
            return node.func.value
        return None
    if isinstance(node, cst.Attribute) and isinstance(node.value, (cst.Call, cst.Name)):
        return node.value  # a method taken, not called: Dynamo cannot rebuild a bound method it made
    return None


def _operations(element: cst.BaseExpression):
    """The host operations in a returned value, outermost first (a bound method only as the whole value)."""
    if isinstance(element, cst.Attribute) and _operand(element) is not None:
        yield element
    for call in descendants(element, cst.Call):
        if _operand(call) is not None:
            yield call


def _holds(element: cst.BaseExpression, node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Name):
        return any(n.value == node.value for n in descendants(element, cst.Name)) or element is node
    return element is node or any(d is node for d in descendants(element, type(node)))


def _without(element: cst.BaseExpression, holder: cst.CSTNode) -> cst.BaseExpression:
    """The returned value with the operation's result taken out (a placeholder no one reads)."""
    return _with_result(element, holder, _PLACEHOLDER)


def _with_result(element: cst.BaseExpression, holder: cst.CSTNode, name: str) -> cst.BaseExpression:
    """The returned value reading the operation's result from ``name`` (the holder's name, or the operation)."""
    if isinstance(holder, cst.Name):
        return element.visit(_Rename(holder.value, name))
    return element.deep_replace(holder, cst.Name(name))


def _rewritten(module: cst.Module, replacements: dict, landing: dict, removed: cst.CSTNode | None) -> cst.Module:
    """The module with ``replacements`` made (by node), ``removed`` dropped from its block and each landing's lines
    after its call statement."""

    class Rewrite(_Move):
        def on_leave(self, original, updated):
            if original in replacements:
                return replacements[original]
            return super().on_leave(original, updated)

    return module.visit(Rewrite({removed} if removed is not None else set(), landing))


def _effect_on_local(statement: cst.SimpleStatementLine) -> str | None:
    """``NAME.method(...)`` as a statement of its own (a hook registered on a tensor): NAME; else None."""
    inner = statement.body[0]
    if isinstance(inner, cst.Expr) and isinstance(inner.value, cst.Call) \
            and isinstance(inner.value.func, cst.Attribute) and isinstance(inner.value.func.value, cst.Name):
        return inner.value.func.value.value
    return None


def _free_names(node: cst.CSTNode) -> set[str]:
    """Names read that the expression does not bind itself (a lambda's parameters, a comprehension's targets)."""
    bound = {p.name.value for lam in descendants(node, cst.Lambda) for p in lam.params.params}
    bound |= {n.value for comp in descendants(node, cst.CompFor) for n in descendants(comp.target, cst.Name)}
    return names_read(node) - bound


def _assigned_in(block: cst.CSTNode) -> set[str]:
    names = {t.target.value for t in descendants(block, cst.AssignTarget) if isinstance(t.target, cst.Name)}
    names |= {n.target.value for n in descendants(block, (cst.AugAssign, cst.AnnAssign)) if isinstance(n.target, cst.Name)}
    return names


def _assigned_in_statements(statements) -> set[str]:
    return set().union(*(_assigned_in(s) for s in statements)) if statements else set()


def _not_rebound_between(tree: SourceTree, function: cst.FunctionDef, statement, ret, operand) -> None:
    """The operand, returned at the end instead of read at the line, must be the same value there."""
    body = list(function.body.body)
    between = body[body.index(statement) + 1:body.index(ret)]
    rebound = sorted(names_read(operand) & _assigned_in_statements(between))
    if rebound:
        raise NoPatch(f"`{'`, `'.join(rebound)}` is assigned again before the return")


class _Rename(cst.CSTTransformer):
    def __init__(self, old: str, new: str):
        super().__init__()
        self.old, self.new = old, new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.new) if updated.value == self.old else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)
