"""BRK006: Dynamo gave up on a whole frame (typically a graph break inside a loop or a `with` block)."""

from __future__ import annotations

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
    reason = ev.reason or "an unsupported construct"
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
