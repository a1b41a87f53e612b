"""Python objects whose behaviour Dynamo models differently from CPython (eager_divergences.json): where the user's
file makes one and a compiled function uses it, the object as the code names it and both lines. Found from the
recorded sources of the compiled frames, so a silent difference is named without a comparison with eager."""

from __future__ import annotations

import ast
import functools
import json
import re
from importlib import resources

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class Divergence:
    """One catalogue entry: how the object is made and used, and tdiag's words for it."""

    id: str
    seen_on: str
    made: str  # regex over the file: the statement that makes the object, its group "holder" the object's name
    used: str  # regex over the compiled function's lines, {holder} the escaped name
    message: str
    fix: str


@lean_dataclass(frozen=True)
class Use:
    """An entry's object as one file makes it and a traced function uses it."""

    entry: Divergence
    holder: str
    words: dict  # the named groups of the entry's ``made`` (holder, maxlen, ...): what its message and fix may name
    made_line: int
    used_line: int


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[Divergence, ...]:
    data = json.loads(resources.files("tdiag.analyzer").joinpath("eager_divergences.json").read_text(encoding="utf-8"))
    return tuple(Divergence(**entry) for entry in data["entries"])


def uses_in_run(analysis) -> list[tuple[str, Use]]:
    """(path, use) of every entry's object used in the run's traced code, the user's files only."""
    from tdiag.analyzer.paths import is_library_display
    from tdiag.analyzer.traced_lines import traced_lines

    out = []
    for path, lines in traced_lines(analysis).items():
        text = analysis.sources.get(path)
        if text and not is_library_display(path):
            out += [(path, use) for use in uses_in(text, lines)]
    return out


def uses_in(text: str, traced_lines: set[int]) -> list[Use]:
    """Each entry's object made in ``text`` (a file) and used in a function Dynamo traced: one holding any of
    ``traced_lines`` (a compiled frame's first line, the lines its graphs' nodes came from, inlined calls too)."""
    bodies = _function_lines(text, traced_lines)
    lines = text.splitlines()
    out = []
    for entry in catalogue():
        for made in re.finditer(entry.made, text):
            holder = made["holder"]
            used = re.compile(entry.used.format(holder=re.escape(holder)))
            at = next((n for start, end in bodies for n in range(start, end + 1)
                       if n <= len(lines) and used.search(_code(lines[n - 1]))), None)
            if at is not None:
                words = {k: v.strip() for k, v in made.groupdict().items() if v is not None}
                out.append(Use(entry, holder, words, text.count("\n", 0, made.start()) + 1, at))
    return out


def _function_lines(text: str, traced_lines: set[int]) -> list[tuple[int, int]]:
    """The line spans of the innermost functions holding a traced line (a frame's code starts at its def, or its
    first decorator)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            end = node.end_lineno or node.lineno
            if any(start <= line <= end for line in traced_lines):
                spans.append((start, end))
    # the innermost: a span holding another traced span is the enclosing function (a class body's method)
    return sorted(s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans))


def _code(line: str) -> str:
    return line.split("#", 1)[0]
