"""The row of screen names at the top of every screen; each name is a link, so the mouse works too."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

SCREENS = (("overview", "Overview"), ("findings", "Findings"), ("recompiles", "Recompiles"),
           ("graphs", "Graphs"), ("source", "Source"))


class NavBar(Static):
    def __init__(self, active: str) -> None:
        super().__init__(id="nav")
        self.active = active

    def on_mount(self) -> None:
        parts = []
        for number, (mode, title) in enumerate(SCREENS, start=1):
            style = "reverse bold" if mode == self.active else ""
            parts.append(Content.from_markup(f"[{style} @click=app.go('{mode}')] {number} {title} [/]"))
        parts.append(Content.from_markup("[dim @click=app.help] ? help [/]"))
        self.update(Content(" ").join(parts))
