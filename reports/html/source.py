"""Source text from the record, cut into lines the templates can mark up.

Renderers read source only from ``Analysis.sources`` (the snapshot taken at capture time), never from disk.
Every piece stays a plain string; the template escapes it.
"""

from __future__ import annotations

from dataclasses import field

from tdiag.lean_dataclass import lean_dataclass

from ..cost_heat import LineHeat, heat_label

EXCERPT_CONTEXT = 1  # lines shown above and below a finding's line


@lean_dataclass
class SourceLine:
    number: int
    before: str  # text before the highlighted expression (the whole line when nothing is highlighted)
    mark: str = ""
    after: str = ""
    target: bool = False
    anchors: list[tuple[str, str, str]] = field(default_factory=list)  # (anchor, code, severity) of findings here
    heat: int = 0  # measured-time level 1..4 (reports/cost_heat.py); 0: none measured on this line
    heat_label: str = ""  # "0.68 ms/step (9% of the window)"


def split_highlight(text: str, column: int | None, end_column: int | None) -> tuple[str, str, str]:
    """Split a line at a 1-based, end-exclusive column range (ruff's convention); no range marks nothing."""
    if not column or column < 1 or column > len(text):
        return text, "", ""
    start = column - 1
    end = len(text) if not end_column or end_column <= column else min(end_column - 1, len(text))
    return text[:start], text[start:end], text[end:]


def excerpt(
    lines: list[str], line: int, column: int | None = None, end_column: int | None = None
) -> list[SourceLine]:
    """A few lines around ``line`` with the expression at column..end_column highlighted."""
    if not 1 <= line <= len(lines):
        return []
    first = max(1, line - EXCERPT_CONTEXT)
    last = min(len(lines), line + EXCERPT_CONTEXT)
    out = []
    for number in range(first, last + 1):
        text = lines[number - 1]
        if number == line:
            before, mark, after = split_highlight(text, column, end_column)
            out.append(SourceLine(number, before, mark, after, target=True))
        else:
            out.append(SourceLine(number, text))
    return out


@lean_dataclass
class SourceFile:
    path: str
    slug: str  # DOM id prefix; paths are not safe as fragment ids
    lines: list[SourceLine]
    finding_count: int

    @property
    def gutter(self) -> str:
        # numbers live in their own <pre> beside the code: a per-line element would double the size of large files
        return "\n".join(str(n) for n in range(1, len(self.lines) + 1))


def annotate(
    path: str, slug: str, text: str, marks: dict[int, list[tuple[str, str, str]]], heat: dict[int, LineHeat] | None = None
) -> SourceFile:
    heat = heat or {}
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        h = heat.get(number)
        lines.append(SourceLine(number, line, target=number in marks, anchors=marks.get(number, []),
                                heat=h.level if h else 0, heat_label=heat_label(h) if h else ""))
    return SourceFile(path, slug, lines, sum(len(v) for v in marks.values()))
