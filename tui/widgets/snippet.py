"""Source around one line, with the exact expression (column..end_column) highlighted."""

from __future__ import annotations

from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text
from tdiag.tui.format import SOURCE_NOT_AVAILABLE

SYNTAX_THEME = "ansi_dark"  # ANSI colours follow the terminal's palette and never paint a background
EXPRESSION_STYLE = "bold reverse"


@lru_cache(maxsize=None)
def lexer(name: str) -> Lexer:
    """rich looks a lexer name up on every render (~8 ms: pygments scans its plugin entry points); do it once."""
    return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)


def warm_lexers() -> None:
    """Look the lexers up before the first detail pane needs them, so that key press does not pay for it."""
    lexer("python")
    lexer("diff")


class CachedSyntax(Syntax):
    """A Syntax that tokenizes once: rich re-highlights on every render, and Textual renders a pane several times
    (once to measure its height, once per repaint), which made each cursor move in the Findings table cost
    tens of milliseconds."""

    def __init__(self, code: str, lexer_name: str, **kwargs) -> None:
        super().__init__(code, lexer(lexer_name), **kwargs)
        self._highlighted: dict[tuple, Text] = {}

    def highlight(self, code, line_range=None) -> Text:
        key = (code, line_range)
        text = self._highlighted.get(key)
        if text is None:
            text = self._highlighted[key] = super().highlight(code, line_range)
        return text.copy()  # callers stylize the result in place


def source_snippet(
    source: str | None, line: int, column: int | None = None, end_column: int | None = None, context: int = 3
) -> RenderableType:
    """``column`` and ``end_column`` are 1-based like the model's; ``end_column`` is exclusive, as in ruff."""
    if source is None:
        return Text(SOURCE_NOT_AVAILABLE, style="dim italic")
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return Text(f"line {line} is outside the recorded source ({len(lines)} lines)", style="dim italic")
    # Lex only the window shown: Syntax would otherwise tokenize the whole file on every repaint.
    first = max(1, line - context)
    window = lines[first - 1 : min(len(lines), line + context)]
    syntax = CachedSyntax(
        "\n".join(window),
        "python",
        theme=SYNTAX_THEME,
        line_numbers=True,
        start_line=first,
        highlight_lines={line},
        word_wrap=False,
    )
    if column:
        end = end_column if end_column and end_column > column else len(lines[line - 1]) + 1
        syntax.stylize_range(EXPRESSION_STYLE, (line - first + 1, column - 1), (line - first + 1, end - 1))
    return syntax


def code_block(code: str, lexer_name: str = "python") -> Syntax:
    return CachedSyntax(code, lexer_name, theme=SYNTAX_THEME, line_numbers=True, word_wrap=False)

