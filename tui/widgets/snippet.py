"""Source around one line, with the exact expression (column..end_column) highlighted."""

from __future__ import annotations

from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text

from tdiag.tui.format import SOURCE_NOT_AVAILABLE

SYNTAX_THEME = "ansi_dark"  # ANSI colours follow the terminal's palette and never paint a background
EXPRESSION_STYLE = "bold reverse"


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
    syntax = Syntax(
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


def code_block(code: str, lexer: str = "python") -> Syntax:
    return Syntax(code, lexer, theme=SYNTAX_THEME, line_numbers=True, word_wrap=False)
