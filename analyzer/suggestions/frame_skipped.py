"""BRK006: Dynamo gave up on a whole frame (typically a graph break inside a loop or a `with` block)."""

from __future__ import annotations

import dataclasses

from tdiag.analyzer.backend_failure import BackendFailure, backend_failure
from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.rules import get_rule
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.helpers.skipped_frame import skip_caused_by, skipped_frame

WHY = (
    "When a graph break happens where Dynamo cannot resume (inside a loop body, a try or with block, a generator), "
    "it skips the whole function: none of it is compiled. Removing that one break compiles the function again."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.suggestions.helpers import disable_helper

    regions = _compile_what_it_calls(finding, ctx)
    if regions is not None:
        return regions
    try:  # the break that made Dynamo skip the frame has a patch of its own: the frame then compiles whole
        return _inner_break_patch(finding, ctx)
    except NoPatch:
        pass
    try:  # the skipped frame is a helper of the user's that only does host work: say so with the decorator
        return disable_helper.suggest(finding, ctx, frame_skipped=True)
    except NoPatch:
        pass
    ev = evidence_as(finding.evidence, BreakEvidence)
    inner = get_rule(ev.inner_code or "")
    if inner is not None and inner.suggester == "branch":  # a filter in a comprehension: no branch to rewrite
        from tdiag.analyzer.suggestions.branch import filter_suggestion

        kept = filter_suggestion(finding, ctx)
        if kept is not None:
            return kept
    failure = backend_failure(ev.explanation)
    if failure is not None and failure.reads_to_python:
        return _capture_scalars_for_the_backend(finding, ctx, failure)
    reason = ev.reason or "an unsupported construct"
    from tdiag.analyzer.suggestions.library_fix import regional_compile

    try:  # the break is in a transformers model's own code: compile its layers, not the code that breaks
        return regional_compile(finding, ctx)
    except NoPatch:
        pass
    return Suggestion(
        title=f"Remove the break that made Dynamo skip {skipped_frame(finding)} ({reason})",
        why=WHY,
        alternatives=[
            "fix the underlying break (see the other findings at this site for a concrete rewrite)",
            "move the loop body that breaks into its own function, so only that function runs eagerly",
            "compile a smaller function that does not contain the break",
            *ev.hints,
        ],
    )


def _compile_what_it_calls(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """A loop Dynamo gave up on (a break inside it) whose function traced nothing, while the code it calls each step
    compiled on its own (a decode or search loop compiled whole: its Python bookkeeping breaks, the model it calls
    is compiled as its own frame): the fix is to compile the model, not the loop (torch's "compile regions")."""
    from tdiag.analyzer.paths import user_function_name

    ev = evidence_as(finding.evidence, BreakEvidence)
    function = finding.function
    # a named function of the user's (a comprehension's frame is not one to compile or not), not a forward itself
    if not function or function.startswith("<") or function == "forward" \
            or not any(c.get("gb_id") == "GB7000" for c in ev.chain):
        return None
    graphs = ctx.analysis.graphs
    own = [g for g in graphs if user_function_name(g.code_name) == function]
    called = sorted({user_function_name(g.code_name) for g in graphs
                     if user_function_name(g.code_name) != function and g.op_count > 0})
    if called != ["forward"] or any(g.op_count > 0 for g in own):
        return None  # only a module's forward compiled on its own: the model the loop calls
    names = ", ".join(f"`{c}`" for c in called)
    return Suggestion(
        title=f"Compile what {function} calls each step, not its loop",
        fix=(f"compile the model {function} calls, not the loop: remove torch.compile from {function} (its loop "
             f"runs eagerly anyway) and compile the module whose {names} it calls each step "
             f"(`model = torch.compile(model)`); Dynamo already compiled {names} on its own"),
        why=(f"Dynamo gave up on {function} at a graph break inside its loop, so none of it is compiled, while "
             f"{names}, which it calls each step, compiled as its own frame: the loop's Python bookkeeping (lists, "
             ".item() scores, sorting) is what breaks, and the model is where the time goes."),
        alternatives=["remove the break in the loop (see the message), so the loop compiles whole",
                      *ev.hints],
    )


def _inner_break_patch(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """The patch of the rule that owns the break had Dynamo resumed after it (``BreakEvidence.inner_code``: BRK002
    for a `.item()` in a loop body, BRK001 for a branch on a tensor), on the same line: removing the break is the
    fix of the skip. A break inside a library is library_fix's (the user cannot edit that line)."""
    from tdiag.analyzer.library_causes import cause_frame
    from tdiag.analyzer.rules import get_rule
    from tdiag.analyzer.suggestions.dispatch import rule_suggestion

    inner = get_rule(evidence_as(finding.evidence, BreakEvidence).inner_code or "")
    if inner is None or inner.suggester in (None, "generic", "frame_skipped") or cause_frame(finding) is not None:
        raise NoPatch("the break has no patch of its own")
    # dispatch's own path: the inner kind's fallback where it cannot patch, and a fault recorded as that kind's
    suggestion = rule_suggestion(dataclasses.replace(finding, code=inner.code, name=inner.name), ctx)
    if suggestion.patch is None:
        raise NoPatch(suggestion.patch_note or "the break's own suggestion has no patch")
    suggestion.why = skip_caused_by(finding, f"This break ({inner.code}: {inner.summary})") + suggestion.why
    if suggestion.fix is None:  # the rule's own line ("remove the break, or move ...") names no change: the patch's does
        suggestion.fix = f"{suggestion.title[:1].lower()}{suggestion.title[1:]}: the break that made Dynamo skip the frame"
    return suggestion


def _capture_scalars_for_the_backend(finding: Finding, ctx: SuggestionContext, failure: BackendFailure) -> Suggestion:
    """The backend met ``.item()``/``.tolist()`` in code it traces (a custom op's backward): with
    capture_scalar_outputs the read becomes a symbolic value in that trace too. A candidate, as every patch is: `tdiag
    fix --verify` keeps it only if the breaks go and the output stays (a read whose value then sizes a tensor or
    picks a branch can still fail)."""
    from tdiag.analyzer.suggestions.scalar_item import capture_scalar_outputs

    alternatives = [
        "pass the values the backward reads as a Python list argument of the custom op (`offs: list[int]`), so "
        "nothing is read from a tensor while tracing",
        "register the backward's loop as a custom op of its own, so the backend does not trace into it",
    ]
    try:
        suggestion = capture_scalar_outputs(ctx.tree(finding.path))
    except NoPatch as why_not:
        return Suggestion(title="Set torch._dynamo.config.capture_scalar_outputs = True", why=failure.words(),
                          patch_note=str(why_not), alternatives=alternatives)
    suggestion.why = (f"Torch split the graph and ran {skipped_frame(finding)} eagerly because {failure.words()}. "
                      + suggestion.why)
    suggestion.alternatives = alternatives
    suggestion.fix = ("set torch._dynamo.config.capture_scalar_outputs = True, so the backend traces the read as a "
                      "symbolic value (`tdiag fix --verify` checks it)")
    return suggestion
