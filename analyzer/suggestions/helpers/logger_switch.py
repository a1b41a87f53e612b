"""BRK004 on a ``logger.<method>(...)`` call inside compiled code, where ``logger`` is a module-level logger.

Dynamo cannot trace logging.Logger methods and breaks the graph at each call. Its switch
``torch._dynamo.config.ignore_logger_methods`` names logger methods it should skip while tracing: the graph stays
whole, the call is dropped from compiled code only (eager code still logs). The patch registers the method right
after the logger is created, so the line keeps its meaning outside torch.compile; deleting the call is the
alternative when the message matters in compiled code too.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
WHY = (
    "Each logger call in compiled code ends the graph, runs the call in Python and starts a new graph. "
    "torch._dynamo.config.ignore_logger_methods tells Dynamo to skip those methods while tracing, so the "
    "function compiles into one graph; the message is then not logged from compiled calls (eager calls still log)."
)


def logger_method(tree: SourceTree, call: cst.Call) -> tuple[str, str, cst.SimpleStatementLine] | None:
    """(logger name, method, the module-level line creating the logger) for ``logger.info(...)``, else None."""
    name = dotted(call.func)
    if not name or name.count(".") != 1:
        return None
    logger, method = name.split(".")
    if method not in _METHODS:
        return None
    for stmt in tree.module.body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
            continue
        assign = stmt.body[0]
        targets = [t.target for t in assign.targets]
        if any(isinstance(t, cst.Name) and t.value == logger for t in targets) and isinstance(assign.value, cst.Call):
            if (tree.qualified(assign.value.func) or "").endswith("logging.getLogger"):
                return logger, method, stmt
    return None


# torch releases whose compilation-metrics logging json-dumps ``ignore_logging_functions`` (ignore_logger_methods is
# its alias): any function in it raises there, at every compile ("Unexpected exception logging compilation
# metrics", a traceback on stderr) and the metrics are lost to tlparse and tdiag. Read in torch 2.11's
# torch/_dynamo/utils.py (_get_dynamo_config_for_logging's blocklist lacks the name; 2.13 has it) and reproduced on
# the H100 and this machine's CPU with transformers' warning_once (tests/suggestions/test_logger_switch_quirk.py).
METRICS_BREAK_ON = ("2.11",)
METRICS_BREAK = ("on torch {version} a function in torch._dynamo.config.ignore_logger_methods makes torch's "
                 "compilation-metrics logging raise at every compile (an error traceback on stderr; tlparse and tdiag "
                 "lose the graphs' compile times and guards): fixed in torch 2.13")


def refuse_where_it_breaks_metrics(ctx: SuggestionContext) -> None:
    """NoPatch on a torch release whose metrics logging the switch breaks (the record's torch, as the run saw it)."""
    version = ctx.analysis.run.torch_version or ""
    if version.startswith(tuple(f"{v}." for v in METRICS_BREAK_ON)) or version in METRICS_BREAK_ON:
        raise NoPatch(METRICS_BREAK.format(version=version.split("+")[0]))


def suggest(finding: Finding, ctx: SuggestionContext, call: cst.Call) -> Suggestion:
    refuse_where_it_breaks_metrics(ctx)
    tree = ctx.tree(finding.path)
    found = logger_method(tree, call)
    if found is None:
        raise NoPatch("not a method of a module-level logging.getLogger(...) logger")
    logger, method, creation = found
    torch = torch_alias(tree)
    line = cst.parse_statement(f"{torch}._dynamo.config.ignore_logger_methods.add({logger}.{method})\n")
    if any(tree.code(s).strip() == tree.module.code_for_node(line).strip() for s in tree.module.body):
        raise NoPatch(f"{logger}.{method} is already ignored")
    body = list(tree.module.body)
    at = body.index(creation) + 1
    patch = patch_for(tree, with_torch_import(tree, tree.module.with_changes(body=[*body[:at], line, *body[at:]])))
    return Suggestion(
        title=f"Let Dynamo skip `{logger}.{method}` in compiled code (ignore_logger_methods)",
        why=WHY,
        patch=patch,
        alternatives=[
            f"move the `{logger}.{method}(...)` call out of the compiled function (log from the caller)",
            "log only every N steps, outside the compiled step",
        ],
    )
