"""BRK005: a call Dynamo will not trace (a C function, a skipped library, an unsupported builtin). Inside a helper
of the user's that only does host work, the patch disables the helper (disable_helper); elsewhere the options."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.native_equivalents import Equivalent, equivalent
from tdiag.analyzer.rules.brk005_untraceable_call import acts_on_gradients, is_backward
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.helpers.syntax import dotted

WHY = (
    "Dynamo cannot see inside this call, so it ends the graph, runs the call in Python and resumes in a new graph. "
    "Moving the call out of the compiled region, or telling the compiler how to treat it, keeps one graph."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.suggestions.helpers import disable_helper

    evidence = evidence_as(finding.evidence, BreakEvidence)
    if is_backward(evidence.reason):
        return _backward_after_call(finding, ctx)
    skipped = evidence.skipped_call()
    if skipped is not None and acts_on_gradients(skipped):
        return _update_after_call(skipped)
    native = equivalent(skipped.name) if skipped is not None else None
    if native is not None:  # torch does the same thing in the graph: that is the fix, whatever else applies
        return _native(finding, skipped, native, ctx)
    try:  # the call is inside a helper of the user's that only does host work: disable the helper
        return disable_helper.suggest(finding, ctx)
    except NoPatch as why_not:
        helper_note = str(why_not)
    callee = (skipped.name if skipped is not None else None) or _callee(finding, ctx) or "the call"
    shown = f"`{callee}`" if callee != "the call" else callee
    return Suggestion(
        title=f"Keep {shown} out of the graph, or register it as an op",
        why=WHY,
        patch_note=f"no patch: which option fits depends on what the function does ({helper_note})",
        alternatives=[
            f"move {shown} out of the compiled function: call it before and pass the result in "
            "(best when it does not depend on tensors computed inside)",
            "wrap it in the smallest function of yours decorated with @torch.compiler.disable: the graph still "
            "splits there and that function runs eagerly on every call, but Dynamo stops trying to trace it",
            f"torch.compiler.allow_in_graph({callee if callee != 'the call' else 'fn'}): put it in the graph as "
            "one opaque call (only for functions that take and return tensors and have no side effects)",
            "torch.library.custom_op('mylib::name', mutates_args=()) with a @name.register_fake (meta) function: "
            "a real op that Dynamo, AOTAutograd and Inductor treat as one node",
        ],
    )


def _backward_after_call(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """``loss.backward()`` inside the compiled step: moved after each call of the step, on the loss it returns."""
    from tdiag.analyzer.suggestions.helpers import read_after_call

    try:
        tree = ctx.tree(finding.path)
        calls = [c for c in tree.nodes_on_line(cst.Call, finding.line) if (dotted(c.func) or "").endswith(".backward")]
        if len(calls) != 1:
            raise NoPatch(f"no single `.backward()` call on line {finding.line}")
        return read_after_call.build(tree, tree.enclosing_statement_line(calls[0]), backward=True)
    except NoPatch as why_not:
        note = f"no patch: {why_not}"
    return Suggestion(
        title="Call `.backward()` after the compiled call",
        why=read_after_call.BACKWARD_WHY.format(tensor="the loss"),
        patch_note=note,
        alternatives=[
            "return the loss from the compiled function and call `.backward()` on it (and the optimizer step) "
            "after the call",
            "torch._dynamo.config.trace_autograd_ops = True (experimental): Dynamo traces the backward into the "
            "graph; a returned tensor whose graph the backward consumed must then be returned detached",
        ],
    )


def _update_after_call(skipped) -> Suggestion:
    """The optimizer's or scheduler's step inside the compiled function: the update belongs after the call."""
    return Suggestion(
        title=f"Call `{skipped.name}` after the compiled call, with the backward",
        why=("torch skips the optimizer's and the LR scheduler's code on purpose (their own compile is torch's "
             "compiled-optimizer recipe), so the graph splits at each. The update follows the backward: run both "
             "after the call, on the loss the step returns, and the step compiles as one graph."),
        patch_note="no patch of its own: the backward's move (BRK005 at the `.backward()` line) takes the update "
                   "with it",
        alternatives=[
            "return the loss from the compiled function; after the call: the loss's `backward()`, then the update "
            "(clipping, the optimizer's `step()`, the scheduler's `step()`, `zero_grad()`) in the order it had",
            "to compile the optimizer step too: `@torch.compile` on a function of yours that calls the optimizer's "
            "`step()` (torch's recipe), the optimizer's learning rate a tensor (`lr=torch.tensor(...)`) where a "
            "scheduler changes it",
        ],
    )


def _native(finding: Finding, skipped, native: Equivalent, ctx: SuggestionContext) -> Suggestion:
    why = f"`{skipped.name}` is skipped by Dynamo ({skipped.why}); `{native.instead}` does the same in torch, " \
          "which Dynamo traces into the graph."
    patch, note = None, f"no patch: {native.note}"
    if native.patch is not None:
        from tdiag.analyzer.suggestions.kinds import resolve

        try:  # the equivalent written into the user's file: a candidate for `tdiag fix --verify`
            patch, note = resolve(native.patch)(finding, ctx), native.note
        except NoPatch as why_not:
            note = f"no patch: {why_not}; {native.note}"
    return Suggestion(
        title=f"Use `{native.instead}` instead of `{skipped.name}`",
        why=why,
        patch=patch,
        patch_note=note,
        alternatives=[
            f"move `{skipped.name}(...)` out of the compiled function: call it before and pass the result in",
            "wrap it in the smallest function of yours decorated with @torch.compiler.disable: the graph still "
            "splits there and that function runs eagerly on every call",
        ],
    )


def _callee(finding: Finding, ctx: SuggestionContext) -> str | None:
    """The dotted name of the call the break points at, from the recorded source."""
    try:
        tree = ctx.tree(finding.path)
    except NoPatch:
        return None
    calls = tree.nodes_on_line(cst.Call, finding.line)
    if finding.column is not None:
        exact = [c for c in calls if tree.positions[c].start.column + 1 == finding.column]
        calls = exact or calls
    names = [dotted(c.func) for c in calls if dotted(c.func)]
    return names[0] if len(names) == 1 else None
