"""The catalogue of known causes inside libraries (library_causes.json), matched to a finding.

An entry is matched by a library frame of the finding (a path suffix and a function name fragment) and by torch's
reason (a regular expression over the reason, context and guard text), never by the program. The frame nearest the
user's line wins, since that is the library API the user called (``to_dense_adj`` rather than the ``scatter`` it
calls).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import field

from tdiag.analyzer.evidence import BreakEvidence, CudaGraphEvidence, RecompileEvidence
from tdiag.analyzer.model import Finding, Frame

from tdiag.lazy_regex import lazy_regex
from tdiag.lean_dataclass import lean_dataclass

_SITE_PACKAGES = lazy_regex(r"^<(?:site-packages|dist-packages)>/")


@lean_dataclass(frozen=True)
class FramePattern:
    """Which library frame an entry matches: a fragment of its path and of its function name."""

    path: str  # a fragment of the display path, e.g. "torch_geometric/utils/_scatter.py"
    function: str = ""  # a fragment of the function name ("" matches any)

    def matches(self, frame: Frame) -> bool:
        return self.path in frame.path and self.function in (frame.function or "")


@lean_dataclass(frozen=True)
class LibraryCause:
    """One catalogue entry (library_causes.json): the library frame and torch's reason it matches, and the fix."""

    id: str
    library: str
    seen_on: str
    codes: tuple[str, ...]
    frames: tuple[FramePattern, ...]
    reason: str
    cause: str
    fix: str
    alternatives: tuple[str, ...] = ()
    patch: str | None = None  # a mechanical patch kind (suggestions/library_fix.py), None: text only
    options: dict = field(default_factory=dict)  # the patch kind's parameters (attribute, keyword, config, value...)


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[LibraryCause, ...]:
    from importlib import resources  # 8 ms to import: only when the catalogue is read

    data = json.loads(resources.files("tdiag.analyzer").joinpath("library_causes.json").read_text(encoding="utf-8"))
    known = {"id", "library", "seen_on", "codes", "frames", "reason", "cause", "fix", "alternatives", "patch"}
    return tuple(
        LibraryCause(
            id=e["id"], library=e["library"], seen_on=e["seen_on"], codes=tuple(e["codes"]),
            frames=tuple(FramePattern(f["path"], f.get("function", "")) for f in e["frames"]),
            reason=e["reason"], cause=e["cause"], fix=e["fix"], alternatives=tuple(e.get("alternatives", ())),
            patch=e.get("patch"), options={k: v for k, v in e.items() if k not in known},
        )
        for e in data["entries"]
    )


def next_candidate(entry: LibraryCause) -> LibraryCause:
    """The entry as its ``next`` candidate describes it: the fix and patch kind tried where the first does not pay
    (or does not apply), the rest of the entry the same."""
    following = entry.options["next"]
    options = {k: v for k, v in entry.options.items() if k != "next"}
    options.update({k: v for k, v in following.items() if k not in ("fix", "patch", "alternatives")})
    return dataclasses.replace(entry, fix=following["fix"], patch=following["patch"], options=options,
                               alternatives=tuple(following.get("alternatives", ())))


def library_frames(finding: Finding) -> list[Frame]:
    """The finding's library frames, nearest the user's line first."""
    frames: list[Frame] = []
    ev = finding.evidence
    if isinstance(ev, BreakEvidence):
        frames.extend(f for f in ev.user_stack if not f.is_user)
        # the other causes at the line, each with its library frame (a backend failure reached through several
        # frames of a library lists each; the one that leads may be torch's own)
        for cause in ev.causes[1:]:
            path, _, line = (cause.get("library_frame") or "").rpartition(":")
            if path and line.isdigit():
                frames.append(Frame(path, int(line), "?", None, False))
    if isinstance(ev, RecompileEvidence) and ev.frame_path and is_library_path(ev.frame_path):
        frames.append(Frame(ev.frame_path, ev.frame_line or 0, ev.frame or "?", None, False))
    if isinstance(ev, RecompileEvidence) and ev.guard_path and is_library_path(ev.guard_path):
        # the library line whose read the failed guard stands for (a library call inlined into the user's compiled
        # function): its function is not recorded, so only an entry's path-only pattern can match it
        frames.append(Frame(ev.guard_path, ev.guard_line or 0, "?", None, False))
    if finding.library_frame is not None:
        frames.append(finding.library_frame)
    return frames


def cause_frame(finding: Finding) -> Frame | None:
    """The library frame (not torch's own) the finding's cause is in, or None."""
    frame = finding.library_frame
    if frame is None or not is_library_path(frame.path) or frame.path.startswith("<site-packages>/torch/"):
        return None
    return frame


def reason_text(finding: Finding) -> str:
    ev = finding.evidence
    parts = [finding.message]
    if isinstance(ev, BreakEvidence):
        parts += [ev.reason, ev.explanation or "", ev.context or ""]
    elif isinstance(ev, RecompileEvidence):
        parts += [ev.guard or "", ev.subject or "", *ev.failures]
    elif isinstance(ev, CudaGraphEvidence):
        parts += [*ev.reasons, ev.skip_kind or "", ev.code or ""]
    return "\n".join(p for p in parts if p)


def match(finding: Finding) -> tuple[LibraryCause, Frame] | None:
    """The catalogue entry for this finding and the library frame it matched, or None."""
    frames = library_frames(finding)
    if not frames:
        return None
    text = reason_text(finding)
    best = None
    for entry in catalogue():
        if entry.options.get("framework"):  # chosen by the framework call on the user's line (framework_cause)
            continue
        if finding.code not in entry.codes or not re.search(entry.reason, text):
            continue
        for depth, frame in enumerate(frames):
            if any(p.matches(frame) for p in entry.frames):
                if best is None or depth < best[0]:
                    best = (depth, entry, frame)
                break
    return (best[1], best[2]) if best else None


def inner_cause(finding: Finding) -> LibraryCause | None:
    """For a frame Dynamo skipped (BRK006), the catalogue entry of the break that made it skip, when that break has
    a known cause of its own: an entry of another break code whose frame is the one the break happened in
    (``finding.library_frame``) and whose reason torch's words match. Removing that break lets the skipped frame
    compile whole, which beats routing around the frame (peft's forward skipped for transformers' loss_type
    warning: the hand fix sets ``loss_type``, not a different compile target)."""
    if finding.library_frame is None:
        return None
    # the library frames between the user's line and the break: an entry names the library API the cause is in,
    # which may call down further before the break (GCNConv's `gcn_norm` into `add_remaining_self_loops`)
    frames = [finding.library_frame, *library_frames(finding)]
    text = reason_text(finding)
    for entry in catalogue():
        if entry.options.get("framework") or finding.code in entry.codes or is_by_design(entry):
            continue
        # torch's words for a skip give the inner break's reason, not the call's arguments the entry's own reason
        # may quote (a warning's text): an entry says what to match then (``skipped_reason``)
        reason = entry.options.get("skipped_reason") or entry.reason
        if not any(code.startswith("BRK") for code in entry.codes) or not re.search(reason, text):
            continue
        if any(p.matches(frame) for p in entry.frames for frame in frames):
            return entry
    return None


def framework_cause(finding: Finding, framework: str) -> LibraryCause | None:
    """The entry for a cause that a framework's own call makes (the Trainer's collator, generate's prefill and
    decode): chosen by the framework call on the user's line, then checked like any entry (code, torch's reason)."""
    text = reason_text(finding)
    for entry in catalogue():
        if entry.options.get("framework") == framework and finding.code in entry.codes and re.search(entry.reason, text):
            return entry
    return None


def is_by_design(entry: LibraryCause) -> bool:
    """torch's own deliberate break: reported as info, nothing to fix."""
    return bool(entry.options.get("by_design"))


def is_library_path(path: str) -> bool:
    return bool(_SITE_PACKAGES.match(path)) or path.startswith("<")


def library_name(path: str) -> str | None:
    """``<site-packages>/torch_geometric/utils/_scatter.py`` -> ``torch_geometric``."""
    m = _SITE_PACKAGES.match(path)
    if not m:
        return None
    return path[m.end():].split("/", 1)[0].removesuffix(".py")


def module_name(path: str) -> str | None:
    """``<site-packages>/transformers/modeling_utils.py`` -> ``transformers.modeling_utils``."""
    m = _SITE_PACKAGES.match(path)
    if not m or not path.endswith(".py"):
        return None
    parts = path[m.end():-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if all(p.isidentifier() for p in parts) else None
