"""Help: every key, gathered from the bindings themselves so the list cannot drift from the code."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEY_NAMES = {"slash": "/", "question_mark": "?", "escape": "Esc", "enter": "Enter", "tab": "Tab",
             "pageup": "PgUp", "pagedown": "PgDn"}


def key_label(keys: str) -> str:
    return " ".join(KEY_NAMES.get(k, k) for k in keys.split(","))


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close")]

    def __init__(self, sections: list[tuple[str, list[Binding]]]) -> None:
        super().__init__(id="help")
        self.sections = sections

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for title, bindings in self.sections:
            table.add_row(Text(title, style="bold underline"), "")
            for binding in bindings:
                table.add_row(key_label(binding.key), binding.description or binding.action)
        table.add_row("", "")
        table.add_row("mouse", "click a screen name, a row, a column header or a source line")
        with VerticalScroll(id="help-box"):
            yield Static(Text("tdiag keys  (Escape closes)", style="bold"))
            yield Static(table)
