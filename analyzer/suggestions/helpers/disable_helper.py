"""``@torch.compiler.disable`` on the user's helper that a graph break is inside (BRK004 / BRK005 / BRK006).

How torch behaves (checked on torch 2.13): a break inside a function the compiled code calls splits the caller
around the call, then Dynamo traces the helper as a frame of its own and breaks again at each untraceable call in
it (a helper with two ``sys.stdout.write`` calls: three breaks, five frames). Disabled, the helper is one clean
break at its call and runs eagerly (one break, three frames), with the same output. That is only worth it when
the helper's work is host work (printing, logging, formatting, I/O, clocks: helpers/host_work.py); tensor compute
in it would lose compilation. Never offered for the compiled function itself, a helper already disabled, or a
function outside the user's files.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.suggestions.helpers.call_sites import compiled_names
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    replace_nodes,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.host_work import compute_call
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

WHY = (
    "The break is inside {helper}, which the compiled code calls: Dynamo splits the caller around the call, then "
    "traces {helper} as a frame of its own and breaks again at each call it cannot trace. {helper} only does host "
    "work (printing, logging, formatting, I/O), which gains nothing from compiling; with @torch.compiler.disable "
    "it runs eagerly and the caller has one break at its call, instead of one per untraceable call inside it."
)

# BRK006, measured on torch 2.13 (a write in a loop of the helper): 1 break either way; disabled, Dynamo traces one
# frame fewer per compile (frames 3 -> 2) and says why the helper runs eagerly
SKIPPED_WHY = (
    "Dynamo tries to compile {helper} each time it compiles its caller, cannot resume after the break inside it, "
    "and runs all of it eagerly anyway. {helper} only does host work (printing, logging, formatting, I/O): with "
    "@torch.compiler.disable Dynamo stops trying (one frame less to trace per compile), the caller keeps its one "
    "break at the call, and the code says that {helper} runs eagerly."
)


def suggest(finding: Finding, ctx: SuggestionContext, frame_skipped: bool = False) -> Suggestion:
    """The patch, or NoPatch saying why the helper around the break is not one to disable. ``frame_skipped``: the
    break made Dynamo skip the whole helper (the frame-skip suggester's finding), which the rationale says."""
    if finding.library_frame is not None:
        raise NoPatch("the break is inside library code, not in a function of the user's files")
    tree = ctx.tree(finding.path)
    func = _helper_at(tree, finding)
    helper = func.name.value
    ev = evidence_as(finding.evidence, BreakEvidence)
    users = [user_function_name(f.function).rpartition(".")[2] for f in ev.user_stack if f.is_user]
    callers = [f for f in users[:-1] if f not in ("<module>", helper)]
    if not users or users[-1] != helper or not callers:
        raise NoPatch(f"{helper} is the compiled function itself (no compiled caller above it in the break's stack)")
    if helper in compiled_names(tree) or helper in _compiled_arguments(tree):
        raise NoPatch(f"{helper} is compiled itself")
    if _disabled(tree, func):
        raise NoPatch(f"{helper} is already disabled")
    compute = compute_call(tree, func)
    if compute is not None:
        raise NoPatch(f"{helper} may do tensor compute worth compiling ({compute}); move only the untraceable "
                      "call out of it")
    why = (SKIPPED_WHY if frame_skipped else WHY).format(helper=helper)
    torch = torch_alias(tree)
    decorator = cst.Decorator(decorator=cst.parse_expression(f"{torch}.compiler.disable"))
    new_module = replace_nodes(tree.module, {func: func.with_changes(decorators=[decorator, *func.decorators])})
    return Suggestion(
        title=f"Run {helper} eagerly: @torch.compiler.disable ({finding.path}:{tree.start_line(func)})",
        why=why,
        patch=patch_for(tree, with_torch_import(tree, new_module)),
        alternatives=[f"call {helper} from outside the compiled function, on the values it returns",
                      "log only every N steps, so the compiled steps in between have no break"],
    )


def _helper_at(tree: SourceTree, finding: Finding) -> cst.FunctionDef:
    statement = next((s for s in tree.nodes((cst.SimpleStatementLine, cst.BaseCompoundStatement))
                      if tree.spans_line(s, finding.line)), None)
    func = tree.enclosing_function(statement) if statement is not None else None
    if func is None:
        raise NoPatch(f"{finding.path}:{finding.line} is not inside a function")
    named = user_function_name(finding.function or "").rpartition(".")[2]
    if named and named not in (func.name.value, "<module>"):
        raise NoPatch(f"no function {finding.function} around {finding.path}:{finding.line} in the recorded source")
    return func


def _disabled(tree: SourceTree, func: cst.FunctionDef) -> bool:
    """``@torch.compiler.disable`` / ``@torch._dynamo.disable`` on it, or ``f = torch.compiler.disable(f)``."""
    if any("disable" in (dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
           for d in func.decorators):
        return True
    for call in tree.nodes(cst.Call):
        if (dotted(call.func) or "").endswith("disable") and any(
                isinstance(a.value, cst.Name) and a.value.value == func.name.value for a in call.args):
            return True
    return False


def _compiled_arguments(tree: SourceTree) -> set[str]:
    """Names passed to ``torch.compile(...)`` (``step = torch.compile(train_step)``: ``train_step``)."""
    return {call.args[0].value.value for call in tree.nodes(cst.Call)
            if tree.qualified(call.func) == "torch.compile" and call.args and isinstance(call.args[0].value, cst.Name)}
