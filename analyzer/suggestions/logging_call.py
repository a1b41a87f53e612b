"""BRK004: print / logging / warnings inside compiled code. Move it out (patch: delete the bare statement), or let
Dynamo reorder it (``reorderable_logging_functions``)."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.context import NoPatch, SuggestionContext, patch_for, replace_statement
from tdiag.analyzer.suggestions.syntax import dotted, is_expression_statement_call

WHY = (
    "Dynamo cannot put I/O into a graph, so it ends the graph before the call, runs the call in Python and starts "
    "a new graph after it. Logging from outside the compiled function (or only every N steps) keeps one graph."
)
_LOGGING_ROOTS = ("print", "logging", "logger", "log", "warnings", "LOGGER", "_logger", "_log")


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
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
    from tdiag.analyzer.suggestions import logger_switch

    if logger_switch.logger_method(tree, call) is not None:  # keep the call, let Dynamo skip it while tracing
        return logger_switch.suggest(finding, ctx, call)
    if any(line.comment for line in statement.leading_lines):
        raise NoPatch("a comment sits on the statement; move it out by hand")
    patch = patch_for(tree, replace_statement(tree, statement, []))
    return Suggestion(
        title=f"Move `{name}(...)` out of the compiled function",
        why=WHY + " The patch deletes the call; log the value from the caller if you still need it.",
        patch=patch,
        alternatives=_alternatives(name),
    )


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
