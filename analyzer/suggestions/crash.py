"""CRS*: the fix for what stopped the program, as a patch where it is mechanical.

- a data-dependent branch under ``fullgraph=True`` (CRS001, GB0170): the branch suggester's torch.where /
  torch.cond rewrite of the ``if`` at the finding's line;
- a violated ``mark_dynamic`` constraint (CRS006): ``torch._dynamo.maybe_mark_dynamic`` for the ``mark_dynamic``
  call of the specialised input;
- a CUDA-graph output overwritten by a later replay (CRS007): ``torch.compiler.cudagraph_mark_step_begin()`` as the
  first statement of the loop around the compiled call, so that all calls of one iteration are one step, then
  ``.clone()`` of the kept output as the next candidate (helpers/cudagraph_outputs.py);
- torch's own internal error (CRS008): ``@torch.compiler.disable`` on the smallest user function around the line,
  when that is a function the compiled one calls; for a line of the compiled function itself, the line moved into
  a new disabled helper (extract_disabled), after, in a LightningModule's training_step, the lines moved into the
  hook Lightning runs uncompiled (lightning_hook: ``self.log`` inside the compiled step stops torch 2.13). The rest stays compiled; the facts for a bug report come along;
- a compiled graph differentiated twice (CRS009): ``@torch.compiler.disable`` on the user's function that takes the
  ``create_graph=True`` gradient (a gradient penalty), when the compiled function calls it.
Anything else: the rule's fix line (NoPatch says why there is no patch). Which one is the kind of crash the finding's
rule owns (its module's ``KIND``, read through ``rules.crash_kind``), not the finding's code.
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.caught_in_trace import caught_by_traced_try
from tdiag.analyzer.evidence import CrashEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import crash_kind
from tdiag.analyzer.suggestions import generic
from tdiag.analyzer.suggestions.helpers import cudagraph_outputs
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    first_candidate,
    patch_for,
    replace_nodes,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import dotted

BRANCH_IDS = {"GB0170"}
TORCH_INTERNAL = "torch_internal"  # the crash kind of torch's own internal error (Crash.kind)
_SUBJECT = re.compile(r"^L\['([A-Za-z_]\w*)'\]")
MAYBE_WHY = (
    "mark_dynamic promises that the code works for every size of the dimension, so torch raises when the code "
    "specialises it. maybe_mark_dynamic asks for the same dynamic shape where the code allows it and lets torch "
    "specialise (and recompile per size) where it does not."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    kind = crash_kind(finding.code)  # the kind of crash the finding's rule owns (its KIND)
    if kind == "graph_break" and finding.gb_id in BRANCH_IDS:
        from tdiag.analyzer.suggestions import branch

        return branch.suggest(finding, ctx)
    if kind == "constraint_violation":
        return _maybe_mark_dynamic(finding, ctx)
    if kind == "cudagraph_overwritten":
        return cudagraph_outputs.suggest(finding, ctx)
    if kind == TORCH_INTERNAL:
        return _disable_smallest(finding, ctx)
    if kind == "double_backward":
        return _disable_double_backward(finding, ctx)
    if finding.evidence is not None and getattr(finding.evidence, "exception", None):
        caught = caught_by_traced_try(finding.evidence.exception, ctx.analysis)
        if caught is not None:
            return _disable_caught_try(caught, ctx)
    raise NoPatch("no mechanical rewrite for this cause: follow the fix line")


def fallback(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    suggestion = generic.suggest(finding, ctx)
    if crash_kind(finding.code) == TORCH_INTERNAL:
        suggestion.alternatives = [*suggestion.alternatives, bug_report(finding, ctx)]
    return suggestion


# --- maybe_mark_dynamic -------------------------------------------------------------------------------------------
def _maybe_mark_dynamic(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    evidence = evidence_as(finding.evidence, CrashEvidence)
    call_path = (evidence.call or "").rpartition(":")[0] or finding.path
    tree = ctx.tree(call_path)
    subject = _SUBJECT.match(evidence.detail or "")
    calls = [c for c in tree.nodes(cst.Call) if (dotted(c.func) or "").endswith("mark_dynamic")
             and not (dotted(c.func) or "").endswith("maybe_mark_dynamic")]
    if subject is not None:
        named = [c for c in calls if c.args and isinstance(c.args[0].value, cst.Name)
                 and c.args[0].value.value == subject.group(1)]
        calls = named or calls
    if not calls:
        raise NoPatch(f"no mark_dynamic call in the recorded {call_path}")
    replacements = {}
    for call in calls:
        func = call.func
        if isinstance(func, cst.Attribute):
            replacements[func] = func.with_changes(attr=cst.Name("maybe_mark_dynamic"))
        elif isinstance(func, cst.Name):
            raise NoPatch("mark_dynamic is imported by name: import maybe_mark_dynamic and call it instead")
    lines = ", ".join(str(tree.start_line(c)) for c in calls)
    return Suggestion(
        title=f"Use torch._dynamo.maybe_mark_dynamic instead of mark_dynamic ({call_path}:{lines})",
        why=MAYBE_WHY,
        patch=patch_for(tree, replace_nodes(tree.module, replacements)),
        alternatives=["remove the code that depends on the exact size of the dimension, and keep mark_dynamic"],
    )


# --- torch.compiler.disable on the smallest function around a torch bug --------------------------------------------
DISABLE_WHY = (
    "The error is inside torch.compile, not in this code: the same code runs eagerly. torch.compiler.disable makes "
    "Dynamo run this one function eagerly (a graph break at its call) while everything around it stays compiled, "
    "until torch fixes the bug."
)


def _disable_smallest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    crash = next((c for c in ctx.analysis.crashes if c.kind == TORCH_INTERNAL and c.site is not None
                  and (c.site.path, c.site.line) == (finding.path, finding.line)), None)
    if crash is None:
        raise NoPatch("no record of torch's error at this line")
    if len(crash.traced) < 2:  # the line is in the compiled function itself: move it into a disabled helper
        from tdiag.analyzer.suggestions.helpers import extract_disabled, lightning_hook

        function = user_function_name(crash.traced[-1].function if crash.traced else finding.function)
        if not function:
            raise NoPatch("the compiled function around the line is not recorded")

        def disabled() -> Suggestion:
            suggestion = extract_disabled.suggest(finding, ctx, function)
            suggestion.alternatives.append(bug_report(finding, ctx))
            return suggestion

        tree = ctx.tree(finding.path)
        statement = tree.statement_at(cst.SimpleStatementLine, finding.line)
        # a LightningModule's step ending in `self.log(...)` (torch 2.13 + lightning 2.6 stop there): the lines move
        # into the hook Lightning runs uncompiled, one graph and no break; the disabled helper is the next candidate
        return first_candidate((lambda: lightning_hook.build(tree, statement), disabled))
    tree = ctx.tree(finding.path)
    inner = crash.traced[-1]
    statement = next((s for s in tree.nodes((cst.SimpleStatementLine, cst.BaseCompoundStatement))
                      if tree.spans_line(s, finding.line)), None)
    func = tree.enclosing_function(statement) if statement is not None else None
    if func is None or func.name.value != user_function_name(inner.function):
        raise NoPatch(f"no function {inner.function} around {finding.path}:{finding.line} in the recorded source")
    return Suggestion(
        title=f"Run {inner.function} eagerly: @torch.compiler.disable ({finding.path}:{tree.start_line(func)})",
        why=DISABLE_WHY,
        patch=_disabled(tree, func),
        alternatives=["move the line out of the compiled function (after the compiled call)", bug_report(finding, ctx)],
    )


def _disabled(tree, func: cst.FunctionDef) -> str:
    """The patch adding ``@torch.compiler.disable`` to ``func``."""
    if any("disable" in (dotted(d.decorator) or "") for d in func.decorators):
        raise NoPatch(f"{func.name.value} is already disabled")
    if any("compile" in (dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
           for d in func.decorators):
        raise NoPatch(f"{func.name.value} is the compiled function itself: disabling it would compile nothing")
    torch = torch_alias(tree)
    decorator = cst.Decorator(decorator=cst.parse_expression(f"{torch}.compiler.disable"))
    new_module = replace_nodes(tree.module, {func: func.with_changes(decorators=[*func.decorators, decorator])})
    return patch_for(tree, with_torch_import(tree, new_module))


# --- a compiled graph differentiated twice: the function taking the create_graph=True gradient runs eagerly ----------
DOUBLE_BACKWARD_WHY = (
    "AOTAutograd compiles one backward per graph, so a gradient taken with create_graph=True inside compiled code "
    "cannot be differentiated again. Run eagerly, the function that takes it keeps eager autograd's double backward; "
    "everything around it stays compiled (a graph break at its call)."
)


def _disable_double_backward(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.rules.crs009_double_backward import grad_site

    where = grad_site(ctx.analysis)
    if where is None:
        raise NoPatch("the torch.autograd.grad call with create_graph=True is not found in the record")
    tree = ctx.tree(where.path)
    statement = next((s for s in tree.nodes(cst.SimpleStatementLine) if tree.spans_line(s, where.line)), None)
    func = tree.enclosing_function(statement) if statement is not None else None
    if func is None:
        raise NoPatch(f"the gradient at {where.path}:{where.line} is not taken inside a function of yours")
    return Suggestion(
        title=f"Run {func.name.value} eagerly: @torch.compiler.disable ({where.path}:{tree.start_line(func)})",
        why=DOUBLE_BACKWARD_WHY,
        patch=_disabled(tree, func),
        alternatives=[f"call {func.name.value} outside the compiled function and pass its result in"],
    )


# --- an error the compiled graph raised at run time, which a traced `try` of the user's meant to catch --------------
CAUGHT_WHY = (
    "Dynamo traces a try body into the graph with fake tensors, where the data-dependent error cannot happen, so the "
    "graph has no except path. Run eagerly, the function keeps its try/except as written; the code around its call "
    "stays compiled (a graph break at the call)."
)


def _disable_caught_try(caught, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(caught.path)
    statement = next((s for s in tree.nodes(cst.BaseCompoundStatement) if tree.spans_line(s, caught.line)), None)
    func = tree.enclosing_function(statement) if statement is not None else None
    if func is None:
        raise NoPatch(f"the try at {caught.path}:{caught.line} is not inside a function of yours")
    return Suggestion(
        title=f"Run {func.name.value} eagerly: @torch.compiler.disable ({caught.path}:{tree.start_line(func)})",
        why=CAUGHT_WHY,
        patch=_disabled(tree, func),
        alternatives=["compute without raising: an op's _ex variant returns an error code (torch.linalg.cholesky_ex, "
                      "torch.linalg.inv_ex) that code can test with torch.where"],
    )


def bug_report(finding: Finding, ctx: SuggestionContext) -> str:
    """The facts PyTorch asks for in a bug report: torch and Python versions, the line, torch's message, and a
    minimal repro stub built around the line (to be completed with the inputs it needs)."""
    run = ctx.analysis.run
    evidence = evidence_as(finding.evidence, CrashEvidence)
    lines = (ctx.analysis.sources.get(finding.path) or "").splitlines()
    code = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else "..."
    message = next((ln for ln in evidence.torch_message.splitlines() if ln.strip()), evidence.exception)
    return (f"report it to PyTorch (github.com/pytorch/pytorch/issues): torch {run.torch_version or '?'}, "
            f"Python {run.python_version or '?'}; {finding.path}:{finding.line} `{code}` raised "
            f"{evidence.exception.rsplit('.', 1)[-1]}: {message}; minimal repro stub:\n"
            f"import torch\n\n@torch.compile(dynamic=True)\ndef repro(x):\n    {code}  # with the names it uses\n"
            f"    return x\n\nrepro(torch.ones(4))")
