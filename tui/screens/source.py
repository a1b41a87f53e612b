"""Source: a recorded file with gutter marks; the findings on the cursor line are listed underneath."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.reports.cost_heat import HEAT_LEVELS, heat_label
from tdiag.tui.format import severity_text
from tdiag.tui.index import MARK_PRIORITY
from tdiag.tui.messages import OpenInEditor, ShowFinding
from tdiag.tui.screens.base import TdiagScreen
from tdiag.tui.widgets.source_view import HEAT_STYLES, MARK_GLYPHS, SourceView
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

MARK_WORDS = {"break": "graph break", "recompile": "recompile", "finding": "other finding", "kernel": "feeds kernels"}


class SourceScreen(TdiagScreen):
    MODE = "source"
    BINDINGS = [
        Binding("e", "edit", "Edit"),
        Binding("tab", "app.focus_next", "Files/Code", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield self.nav()
        with Container(id="source-body"):
            yield OptionList(*(Option(path, id=path) for path in self.index.marked_paths()), id="files")
            with Vertical(id="source-column"):
                yield Static(id="source-legend")
                yield SourceView(id="source-view")
                yield Static(id="line-findings")
        yield self.footer()

    def on_mount(self) -> None:
        legend = Text()
        for kind in MARK_PRIORITY:
            glyph, style = MARK_GLYPHS[kind]
            legend.append(glyph, style).append(f" {MARK_WORDS[kind]}  ", "dim")
        if self.index.heat:
            legend.append("heat ", "dim")
            for level in range(1, HEAT_LEVELS + 1):
                legend.append(" ", HEAT_STYLES[level])
            legend.append(" measured time  ", "dim")
        legend.append("n/p: next/prev mark  Enter: open finding", "dim")
        self.query_one("#source-legend", Static).update(legend)
        paths = self.index.marked_paths()
        if paths and not self.query_one(SourceView).path:
            self.open_file(paths[0], self._first_mark(paths[0]))
        self.query_one(SourceView).focus()

    def _first_mark(self, path: str) -> int:
        return min(self.index.marks.get(path, {1: None}))

    def open_file(self, path: str, line: int = 1) -> None:
        view = self.query_one(SourceView)
        if view.path != path:
            view.show(path, self.analysis.sources.get(path), self.index.marks.get(path, {}), line,
                      heat=self.index.heat.get(path))
            files = self.query_one("#files", OptionList)
            try:
                files.highlighted = files.get_option_index(path)
            except Exception:
                pass
        else:
            view.move_to(line)
        self._show_line(path, view.cursor_line)
        view.focus()

    @property
    def cursor(self) -> tuple[str, int]:
        view = self.query_one(SourceView)
        return view.path, view.cursor_line

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        path = str(event.option.id)
        self.open_file(path, self._first_mark(path))

    def on_source_view_line_changed(self, event: SourceView.LineChanged) -> None:
        event.stop()
        self._show_line(event.path, event.line)

    def on_source_view_line_selected(self, event: SourceView.LineSelected) -> None:
        event.stop()
        found = self.index.marks.get(event.path, {}).get(event.line)
        if found is not None and found.findings:
            self.post_message(ShowFinding(found.findings[0]))
        else:
            self.notify("No finding on this line.", severity="information")

    def action_edit(self) -> None:
        path, line = self.cursor
        if path:
            self.post_message(OpenInEditor(path, line))

    def _show_line(self, path: str, line: int) -> None:
        self.query_one("#line-findings", Static).update(self.line_summary(path, line))

    def line_summary(self, path: str, line: int) -> RenderableType:
        marks = self.index.marks.get(path, {}).get(line)
        heat = self.index.heat.get(path, {}).get(line)
        if marks is None:
            return Text(f"{path}:{line}  nothing recorded on this line", style="dim")
        parts: list[RenderableType] = [
            Text(f"{path}:{line}  " + ", ".join(MARK_WORDS[k] for k in MARK_PRIORITY if k in marks.kinds),
                 style="bold")
        ]
        if heat is not None:
            parts.append(Text.assemble(("measured here: ", "dim"), (heat_label(heat), "bold")))
        for i in marks.findings[:5]:
            f = self.analysis.findings[i]
            parts.append(Text.assemble(severity_text(f.severity), " ", (f.code, "bold"), f" {f.message}"))
        if len(marks.findings) > 5:
            parts.append(Text(f"… {len(marks.findings) - 5} more", style="dim"))
        return Group(*parts)
