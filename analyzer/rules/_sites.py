"""Every finding on the user's own line: where a rule's natural location (a compiled frame, a kernel's source line)
is inside a library or generated code, the finding is anchored on the user line that reached it, and the library
location is kept as ``Finding.library_frame`` (shown with ``tdiag lint --show-library-sites``)."""

from __future__ import annotations

from tdiag.analyzer.model import Frame, Site
from tdiag.analyzer.paths import is_library_display


def frame_call_sites(analysis) -> dict[tuple, Site]:
    """(rank, frame_id) -> the user line that entered the frame; a resume function inherits its parent's."""
    sites = {(f.rank, f.frame_id): f.call_site for f in analysis.frames if f.call_site is not None}
    by_name = {}
    for f in analysis.frames:
        if f.call_site is not None:
            by_name.setdefault((f.rank, f.path, f.code_name), f.call_site)
    for f in analysis.frames:
        if (f.rank, f.frame_id) not in sites and (f.rank, f.path, f.code_name) in by_name:
            sites[(f.rank, f.frame_id)] = by_name[(f.rank, f.path, f.code_name)]
    return sites


def anchor(path: str, line: int, function: str | None, entry: Site | None) -> tuple[Site, Frame | None]:
    """The user site for a location, and the library frame when the location is not the user's."""
    if not is_library_display(path):
        return Site(path, line, function=function), None
    library = Frame(path, line, function or "?", None, False)
    if entry is not None:
        return Site(entry.path, entry.line, entry.column, entry.end_column, entry.function), library
    return Site(path, line, function=function), library  # nothing of the user's on record: say where it is
