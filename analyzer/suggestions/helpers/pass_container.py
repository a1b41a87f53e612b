"""Patch kind: pass the dict itself and make its view inside the compiled function (the catalogue's "move-in"
candidate for a dict view Dynamo cannot iterate when it is made outside: ``f(x, cfg.items())``).

``def f(x, items): it = iter(items)`` called as ``f(x, cfg.items())`` becomes ``def f(x, cfg): it = iter(cfg.items())``
called as ``f(x, cfg)``. It applies only where that is the same program by construction: the parameter the break's
line reads gets, at every call of the function in the file, a view (``.items()``, ``.keys()``, ``.values()``) of the
same name, which the function does not otherwise bind; a dict view is live, so making it again at each use inside
sees the same dict the one made outside did.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.call_sites import argument_for
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes
from tdiag.analyzer.suggestions.helpers.hoist_to_caller import calls_of
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import descendants

KIND = "move-in"
_VIEWS = ("items", "keys", "values")


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = tree.statement_at(cst.SimpleStatementLine, finding.line)
    function = tree.enclosing_function(statement) if statement is not None else None
    if function is None or tree.parent(function) is not tree.module:
        raise NoPatch("the line is not in a module-level function")
    params = tree.params(function)
    calls = calls_of(tree, function)
    for param in sorted(names_read(statement) & set(params)):
        views = [argument_for(call, param, params).value for call in calls]
        if not all(_is_view(v) for v in views):
            continue
        owners = {v.func.value.value for v in views}
        methods = {v.func.attr.value for v in views}
        if len(owners) != 1 or len(methods) != 1:
            continue
        owner, method = owners.pop(), methods.pop()
        if owner in params or any(isinstance(t.target, cst.Name) and t.target.value == owner
                                  for t in descendants(function, cst.AssignTarget)):
            continue
        return _patch(tree, function, calls, views, param, owner, method)
    raise NoPatch("no parameter on this line gets a dict view (.items(), .keys(), .values()) at every call")


def _is_view(value: cst.BaseExpression) -> bool:
    return (isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute)
            and isinstance(value.func.value, cst.Name) and value.func.attr.value in _VIEWS)


def _patch(tree, function: cst.FunctionDef, calls, views, param: str, owner: str, method: str) -> Suggestion:
    replacements: dict[cst.CSTNode, cst.CSTNode] = {view: view.func.value for view in views}
    for node in descendants(function.body, cst.Name):
        if node.value == param and _is_read(tree, node):
            replacements[node] = cst.parse_expression(f"{owner}.{method}()")
    for p in function.params.params:
        if p.name.value == param:
            replacements[p.name] = cst.Name(owner)
    return Suggestion(
        title=f"Pass `{owner}` itself to {function.name.value} and call `.{method}()` inside it",
        why="Dynamo cannot iterate a dict view made outside the compiled function; the dict itself it can, and a "
        "view made inside is traced into the graph.",
        patch=patch_for(tree, replace_nodes(tree.module, replacements)),
    )


def _is_read(tree, node: cst.Name) -> bool:
    parent = tree.parent(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    return not (isinstance(parent, cst.Arg) and parent.keyword is node)
