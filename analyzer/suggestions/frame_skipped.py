"""BRK006: Dynamo gave up on a whole frame (typically a graph break inside a loop or a `with` block)."""

from __future__ import annotations

from tdiag.analyzer.backend_failure import BackendFailure, backend_failure
from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.library_causes import library_name
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext

WHY = (
    "When a graph break happens where Dynamo cannot resume (inside a loop body, a try or with block, a generator), "
    "it skips the whole function: none of it is compiled. Removing that one break compiles the function again."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.suggestions.helpers import disable_helper

    try:  # the skipped frame is a helper of the user's that only does host work: say so with the decorator
        return disable_helper.suggest(finding, ctx, frame_skipped=True)
    except NoPatch:
        pass
    ev = evidence_as(finding.evidence, BreakEvidence)
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


def skipped_frame(finding: Finding) -> str:
    """The function Dynamo skipped, named as the user finds it: the frame's own name (torch's code name), with the
    library it is in when it is not the user's (peft's ``forward``, not the user's ``main`` that holds the call)."""
    ev = evidence_as(finding.evidence, BreakEvidence)
    name = ev.code_name or finding.function
    if not name:
        return "this function"
    for frame in ev.user_stack:
        function = frame.function or ""
        if not frame.is_user and (function == name or function.endswith("." + name)):
            return f"{function} ({library_name(frame.path) or 'library'} {frame.path}:{frame.line})"
    return name
