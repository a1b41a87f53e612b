"""BRK004: print / logging / warnings inside compiled code. The patch keeps the output: a ``print`` is replayed
after the graph (``reorderable_logging_functions``), a module logger's method is skipped while tracing
(logger_switch). A print whose replay could print something else (an argument changed in place later) gets no
such patch: a patch that cannot keep the program's output is never offered. When neither applies and the call is
inside a helper of the user's that only does host work, the helper is disabled (disable_helper)."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers import lightning_hook, read_after_call
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    first_candidate,
    patch_for,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted, is_expression_statement_call
from tdiag.analyzer.suggestions.scalar_item import imports_torch

WHY = (
    "Dynamo cannot put I/O into a graph, so it ends the graph before the call, runs the call in Python and starts "
    "a new graph after it. Logging from outside the compiled function (or only every N steps) keeps one graph."
)
REORDER_FLAG = "_dynamo.config.reorderable_logging_functions"
# The functions torch's hint offers to replay after the graph, and the keywords each replays as written (its test
# test_reorderable_logging_functions: print, warnings.warn); a logger's methods take ignore_logger_methods instead.
_REPLAYED = {"print": frozenset({"sep", "end", "flush"}), "warnings.warn": frozenset({"category", "stacklevel"})}
_LOGGING_ROOTS = ("print", "logging", "logger", "log", "warnings", "LOGGER", "_logger", "_log")


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    try:
        return _keep_output(finding, ctx)
    except NoPatch as why_not:
        from tdiag.analyzer.suggestions.helpers import disable_helper

        try:  # not replayable, but inside a helper that only logs: run the helper eagerly
            return disable_helper.suggest(finding, ctx)
        except NoPatch:
            raise why_not from None


def _keep_output(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    statement = next(
        (s for s in tree.nodes_on_line(cst.SimpleStatementLine, finding.line) if is_expression_statement_call(s)),
        None,
    )
    call = is_expression_statement_call(statement) if statement is not None else None
    if call is None:
        raise NoPatch("the call's value is used, so it cannot just be removed")
    name = dotted(call.func) or ""
    if name.split(".")[0] not in _LOGGING_ROOTS:
        raise NoPatch(f"`{name or 'the call'}` is not a print or logging call")
    try:
        in_place = _in_place(finding, ctx, tree, statement, call, name)
    except NoPatch as why_not:
        in_place, refused = None, why_not
    try:
        # the call (and the host reads it prints) moved after the compiled function's call, or into the Lightning
        # hook that runs after training_step: the hand fix, one graph and the same output; what keeps the call in
        # place is the next candidate
        moved = first_candidate((lambda: read_after_call.build(tree, statement),
                                 lambda: lightning_hook.build(tree, statement)))
    except NoPatch:
        if in_place is None:
            raise refused from None
        return in_place
    moved.candidates = [in_place] if in_place is not None else []
    moved.alternatives = _alternatives(name)
    return moved


def _in_place(finding: Finding, ctx: SuggestionContext, tree: SourceTree, statement: cst.SimpleStatementLine,
              call: cst.Call, name: str) -> Suggestion:
    """The patch that keeps the call where it is: the logger skipped while tracing, or the print replayed."""
    from tdiag.analyzer.suggestions.helpers import logger_switch

    if logger_switch.logger_method(tree, call) is not None:  # keep the call, let Dynamo skip it while tracing
        return logger_switch.suggest(finding, ctx, call)
    replayed = _REPLAYED.get(tree.qualified(call.func) or name)
    if replayed is None:
        raise NoPatch(f"`{name}(...)` is not replayed by torch; move it out of the compiled function by hand")
    return _replayed_call(tree, statement, call, name, replayed)


def _replayed_call(tree: SourceTree, statement: cst.SimpleStatementLine, call: cst.Call, name: str,
                   keywords: frozenset[str]) -> Suggestion:
    """``reorderable_logging_functions.add(print)`` (or ``warnings.warn``, as the file names it) after the file's
    ``import torch``: Dynamo records the call and replays it after the graph, with the values the graph computed, so
    the output stays the same."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value not in keywords:
            raise NoPatch(f"{name}(..., {arg.keyword.value}=...) is not replayed as written; move it out by hand")
    function = tree.enclosing_function(statement)
    if function is None:
        raise NoPatch("the print is not inside a function")
    mutated = _mutated_names(tree, function, statement) & _names_in(call)
    if mutated:
        # torch replays the call after the graph with the tensor's final value: an in-place change after the
        # print would show in the output (checked on torch 2.13: `print(y); y.add_(1)` prints the added value)
        raise NoPatch(f"`{', '.join(sorted(mutated))}` may change in place in the function, and a replayed print "
                      "would show the changed value; move the print after the call, on the returned value")
    if any((dotted(node) or "").endswith(REORDER_FLAG) for node in tree.nodes(cst.Attribute)):
        # in code only: a comment that names the setting registers nothing
        raise NoPatch("the file already registers functions in reorderable_logging_functions")
    torch = torch_alias(tree)
    flag = cst.parse_statement(f"{torch}.{REORDER_FLAG}.add({name})\n")
    module = with_torch_import(tree, tree.module)
    body = list(module.body)
    at = next((i + 1 for i, stmt in enumerate(body) if imports_torch(stmt)), None)
    if at is None:
        raise NoPatch("no top-level `import torch` line to put the setting after")
    return Suggestion(
        title=f"Let Dynamo replay `{name}(...)` after the graph (reorderable_logging_functions)",
        why=WHY + f" With {name} in torch._dynamo.config.reorderable_logging_functions, Dynamo keeps one graph and "
        "makes the same call after it runs.",
        patch=patch_for(tree, module.with_changes(body=[*body[:at], flag, *body[at:]])),
        alternatives=_alternatives(name),
    )


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

    node.visit(Names())
    return found


def _mutated_names(tree: SourceTree, function: cst.FunctionDef, skip: cst.CSTNode) -> set[str]:
    """Names the function may change in place anywhere but in ``skip``: ``x.op_()``, ``x += ...``, ``x[i] = ...``,
    ``x.a = ...``, or ``x`` passed to a call that is not a plain torch function (which might mutate it)."""
    mutated: set[str] = set()

    def root(expr: cst.BaseExpression) -> str | None:
        while isinstance(expr, (cst.Attribute, cst.Subscript)):
            expr = expr.value
        return expr.value if isinstance(expr, cst.Name) else None

    class Mutations(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, n: cst.SimpleStatementLine) -> bool:
            return n is not skip

        def visit_Call(self, n: cst.Call) -> None:
            func = n.func
            if isinstance(func, cst.Attribute) and func.attr.value.endswith("_") and not func.attr.value.endswith("__"):
                if (r := root(func.value)) is not None:
                    mutated.add(r)
            qualified = tree.qualified(func) or ""
            keywords = {a.keyword.value for a in n.args if a.keyword is not None}
            if not qualified.startswith("torch.") or keywords & {"out", "inplace"}:
                mutated.update(r for a in n.args if (r := root(a.value)) is not None)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            if (r := root(n.target)) is not None:
                mutated.add(r)

        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if isinstance(n.target, (cst.Attribute, cst.Subscript)) and (r := root(n.target)) is not None:
                mutated.add(r)

    function.body.visit(Mutations())
    return mutated


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    name = _called_name(finding, ctx)
    return Suggestion(title="Move the print/logging call out of the compiled function", why=WHY,
                      alternatives=_alternatives(name))


def _called_name(finding: Finding, ctx: SuggestionContext) -> str:
    """The logging call's dotted name on the finding's line (``print`` when it cannot be read)."""
    try:
        tree = ctx.tree(finding.path)
    except NoPatch:
        return "print"
    names = [dotted(c.func) or "" for c in tree.nodes_on_line(cst.Call, finding.line)]
    return next((n for n in names if n.split(".")[0] in _LOGGING_ROOTS), "print")


def _alternatives(name: str) -> list[str]:
    common = ["log from the caller, on the returned tensors, or only every N steps",
              "torch._logging / TORCH_LOGS for compiler-side logging"]
    if name == "print" or name.startswith(("logging.", "warnings.")):
        return [f"torch._dynamo.config.reorderable_logging_functions.add({name}): Dynamo runs the call after the "
                "graph instead of breaking (functions only; arguments must be traceable)", *common]
    # a logger method: reorderable_logging_functions takes functions and does not apply; ignore_logger_methods does
    return [f"torch._dynamo.config.ignore_logger_methods.add({name}): Dynamo skips the method while tracing "
            "(eager calls still log)", *common]
