"""Unified diffs against the recorded source: making them, and applying them to a (possibly edited) file.

The applier is deliberately strict about content and lenient only about position: a hunk applies where its
context and removed lines match exactly, searched outward from the recorded line, so a patch still lands after
unrelated lines were added above it, and refuses to land when the lines it touches changed.
"""

from __future__ import annotations

import difflib
import re

from tdiag.lean_dataclass import lean_dataclass

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def make_patch(path: str, old: str, new: str) -> str | None:
    """A unified diff with ``a/PATH``/``b/PATH`` headers, or None when nothing changed."""
    if old == new:
        return None
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=f"a/{path}", tofile=f"b/{path}"
    )
    # A file without a final newline would otherwise produce hunks that `patch` cannot read.
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@lean_dataclass
class Hunk:
    old_start: int  # 1-based
    old_lines: list[str]
    new_lines: list[str]


def parse_hunks(patch: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    current: Hunk | None = None
    for raw in patch.splitlines():
        header = _HUNK_HEADER.match(raw)
        if header:
            current = Hunk(int(header.group(1)), [], [])
            hunks.append(current)
            continue
        if current is None or raw.startswith(("---", "+++")) and not current.old_lines and not current.new_lines:
            continue
        tag, body = raw[:1], raw[1:]
        if tag == " ":
            current.old_lines.append(body)
            current.new_lines.append(body)
        elif tag == "-":
            current.old_lines.append(body)
        elif tag == "+":
            current.new_lines.append(body)
        elif raw == "":  # some tools strip the single space of an empty context line
            current.old_lines.append("")
            current.new_lines.append("")
    return hunks


def apply_patch(text: str, patch: str) -> str | None:
    """``text`` with ``patch`` applied, or None when a hunk's lines are no longer there."""
    lines = text.splitlines()
    offset = 0  # how far earlier hunks moved the following lines
    for hunk in parse_hunks(patch):
        # An insertion-only hunk at line 0 has old_start 0.
        expected = max(hunk.old_start - 1, 0) + offset
        at = _find(lines, hunk.old_lines, expected)
        if at is None:
            return None
        lines[at : at + len(hunk.old_lines)] = hunk.new_lines
        offset = at - max(hunk.old_start - 1, 0) + len(hunk.new_lines) - len(hunk.old_lines)
    return "\n".join(lines) + ("\n" if text.endswith("\n") or not text else "")


def _find(lines: list[str], needle: list[str], expected: int) -> int | None:
    n = len(needle)
    for distance in range(len(lines) + 1):
        for at in (expected - distance, expected + distance) if distance else (expected,):
            if 0 <= at <= len(lines) - n and lines[at : at + n] == needle:
                return at
    return None
