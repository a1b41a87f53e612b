"""A source file's lines, syntax-highlighted only as far as the view has asked for them.

Lexing a whole file up front cost the Source screen most of its first 200 ms on a 400-line file. Pygments lexes as a
generator, so the lines before the cursor and the screen below it are lexed on first show and the rest as the view
scrolls there. The tokens are the same as a whole-file lex: lexing always starts from the top of the file, so a
triple-quoted string opened above the screen is still a string.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.syntax import Syntax
from rich.text import Text
from tdiag.tui.widgets.snippet import SYNTAX_THEME, lexer


class LazyHighlight:
    def __init__(self, source: str) -> None:
        # A file without a final newline still ends with its last line; the lexer appends the newline itself.
        self.line_count = source.count("\n") + (0 if source.endswith("\n") else 1)
        if not source.endswith("\n"):
            source += "\n"
        self.plain = source.split("\n")[: self.line_count]
        syntax = Syntax("", lexer("python"), theme=SYNTAX_THEME)
        # Rich's Syntax keeps its base style and token styles private; where they moved, use the public theme API.
        base = getattr(syntax, "_get_base_style", None)
        theme = getattr(syntax, "_theme", None) or Syntax.get_theme(SYNTAX_THEME)
        self._base_style = base() if callable(base) else theme.get_background_style()
        self._justify = "default" if self._base_style.transparent_background else "left"
        self._style_for = theme.get_style_for_token
        self._tokens: Iterator | None = lexer("python").get_tokens(source)
        self._lines: list[Text] = []
        self._current = self._new_line()

    def _new_line(self) -> Text:
        return Text(style=self._base_style, justify=self._justify)  # type: ignore[arg-type]

    def line(self, number: int) -> Text:
        """Line ``number`` (1-based), lexing up to it if it has not been reached yet."""
        while len(self._lines) < number and self._tokens is not None:
            try:
                token_type, value = next(self._tokens)
            except StopIteration:
                self._tokens = None
                break
            style = self._style_for(token_type)
            first, *rest = value.split("\n")
            if first:
                self._current.append(first, style)
            for part in rest:
                self._lines.append(self._current)
                self._current = self._new_line()
                if part:
                    self._current.append(part, style)
        if number <= len(self._lines):
            return self._lines[number - 1]
        return self._current if number == len(self._lines) + 1 else self._new_line()
