"""Patch kind: enter the context manager around the call, not inside the compiled function (the catalogue's
"move-out" candidate for a context manager Dynamo does not know how to enter: a ``threading.Lock`` passed in, a
user object with ``__enter__``).

``def f(buf, x, lock): with lock: buf = buf + x`` then ``return buf * 2``, called as ``buf = f(buf, x, lock)``,
becomes ``def f(buf, x): buf = buf + x`` / ``return buf * 2`` called as ``with lock: buf = f(buf, x)``.

It applies only where the statement is a ``with`` of one context manager without ``as`` at the top level of a
module-level function, the manager is a parameter the function uses nowhere else (dropped from the function and its
calls) or a module-level name, and every use of the function in the file is a call standing as a statement of its
own, which the ``with`` can hold. What the move changes is how long the manager is held: the whole call instead of
part of it (for a lock, the compiled function's other work runs under it too); `tdiag fix --verify` measures the
program's output against the run before the patch.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.call_sites import argument_for
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for
from tdiag.analyzer.suggestions.helpers.hoist_to_caller import calls_of, top_level_function
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants

KIND = "move-out"


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = tree.statement_at(cst.With, finding.line)
    if statement is None:
        raise NoPatch(f"no with statement starts on line {finding.line}")
    function = top_level_function(tree, statement)
    if len(statement.items) != 1 or statement.items[0].asname is not None or statement.asynchronous:
        raise NoPatch("the with statement enters more than one manager, or binds it with `as`")
    manager = statement.items[0].item
    if not isinstance(manager, cst.Name):
        raise NoPatch("the context manager is made on the line, not passed in or named at module level")
    name, params = manager.value, tree.params(function)
    uses = [n for n in descendants(function.body, cst.Name) if n.value == name]
    if name in params and len(uses) != 1:
        raise NoPatch(f"`{name}` is used in `{function.name.value}` besides being entered")
    if name not in params and not tree.is_bound(name, tree.module):
        raise NoPatch(f"`{name}` is neither a parameter of `{function.name.value}` nor a module-level name")
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    for call in calls_of(tree, function):
        site = _statement_of(tree, call)
        held = manager
        new_call = call
        if name in params:
            argument = argument_for(call, name, params)
            held = argument.value
            new_call = call.with_changes(args=_without(call.args, argument))
        inner = site.deep_replace(call, new_call) if new_call is not call else site
        replacements[site] = statement.with_changes(
            items=[statement.items[0].with_changes(item=held)], leading_lines=site.leading_lines,
            body=cst.IndentedBlock(body=[inner.with_changes(leading_lines=())]))
    body = []
    for stmt in function.body.body:
        if stmt is statement:  # the with's own statements, at the function's level
            inner = list(statement.body.body)
            body += [inner[0].with_changes(leading_lines=statement.leading_lines), *inner[1:]]
        else:
            body.append(stmt)
    new_function = function.with_changes(body=function.body.with_changes(body=body))
    if name in params:
        kept = [p for p in function.params.params if p.name.value != name]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new_function = new_function.with_changes(params=function.params.with_changes(params=kept))
    module = _rewritten(tree, {function: new_function, **replacements})
    callers = ", ".join(f"line {tree.start_line(s)}" for s in replacements)
    return Suggestion(
        title=f"Enter `{name}` around the call of `{function.name.value}` ({callers}), not inside it",
        why="Dynamo does not know how to enter this context manager inside the compiled function, so the function "
        "runs eagerly. Entered by the caller around the call, it holds the same code (and the rest of the compiled "
        "call with it), and the function compiles as one graph.",
        patch=patch_for(tree, module),
    )


def _statement_of(tree: SourceTree, call: cst.Call) -> cst.SimpleStatementLine:
    """The statement a call stands in as its whole value (``buf = f(...)``, ``f(...)``); NoPatch otherwise."""
    small = tree.parent(call)
    line = tree.parent(small) if small is not None else None
    if not (isinstance(small, (cst.Assign, cst.Expr)) and small.value is call
            and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        raise NoPatch(f"the call at line {tree.start_line(call)} is not a statement of its own that a with can hold")
    return line


def _without(args, argument: cst.Arg) -> list[cst.Arg]:
    kept = [a for a in args if a is not argument]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


def _rewritten(tree: SourceTree, replacements: dict[cst.CSTNode, cst.CSTNode]) -> cst.Module:
    class Replace(cst.CSTTransformer):
        def on_leave(self, original, updated):
            return replacements.get(original, updated)

    return tree.module.visit(Replace())
