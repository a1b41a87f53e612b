"""The frame Dynamo skipped, named as the user finds it, and the words that tie a break's patch to that skip."""

from __future__ import annotations

from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.library_causes import library_name
from tdiag.analyzer.model import Finding


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


def skip_caused_by(finding: Finding, the_break: str) -> str:
    """The sentence before a break's own why, when that break is what made Dynamo skip the finding's frame."""
    return (f"{the_break} made Dynamo skip {skipped_frame(finding)}: it cannot resume after a break there, so none "
            f"of it compiles. Without the break it compiles whole. ")
