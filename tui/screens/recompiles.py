"""Recompilations: per frame, the chain of compiled variants and the guard that failed before each one."""

from __future__ import annotations

from functools import cached_property

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Analysis, FrameInfo, GraphKey, Recompile
from tdiag.tui.format import expected_actual, site_cell, site_label
from tdiag.tui.messages import ShowGraph
from tdiag.tui.screens.base import TdiagScreen
from tdiag.tui.widgets.row_table import RowTable, RowTableHeader, header_content
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.widgets import Static

COLUMNS = (("function", 16), ("site", 18), ("variants", 8), ("limit", 5))
SITE_WIDTH = dict(COLUMNS)["site"]


class RecompilesScreen(TdiagScreen):
    MODE = "recompiles"
    BINDINGS = [Binding("enter", "open_graph", "Latest graph", show=False)]

    def compose(self) -> ComposeResult:
        yield self.nav()
        with Container(id="recompiles-body"):
            if self.analysis.frames:
                with Container(id="frames-list"):
                    yield RowTableHeader(header_content(COLUMNS), id="frames-header", classes="table-header")
                    yield RowTable(COLUMNS, self._cells, id="frames-table")
                with VerticalScroll(id="chain-pane"):
                    yield Static(id="chain")
            else:
                yield Static(Text("No frames were compiled in this record.", style="bold"), id="no-frames")
        yield self.footer()

    def on_mount(self) -> None:
        if not self.analysis.frames:
            return
        table = self.query_one("#frames-table", RowTable)
        table.set_items(list(range(len(self.frames))))
        table.focus()
        self._show_chain()

    @cached_property
    def frames(self) -> list[FrameInfo]:
        # Frames that recompiled most come first: that is where the time goes.
        return sorted(self.analysis.frames, key=lambda f: (-f.recompiles, -f.hit_recompile_limit, f.frame_id))

    def _cells(self, row: int) -> list[Text]:
        frame = self.frames[row]
        return [Text(frame.code_name), site_cell(frame.path, frame.line, None, SITE_WIDTH),
                Text(str(len(frame.variants))),
                Text.assemble(("HIT", "bold red")) if frame.hit_recompile_limit else Text("")]  # spans survive truncate

    @property
    def selected_frame(self) -> FrameInfo | None:
        if not self.analysis.frames:
            return None
        row = self.query_one("#frames-table", RowTable).cursor_item
        return None if row is None else self.frames[row]

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        event.stop()
        self._show_chain()

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        self.action_open_graph()

    def action_open_graph(self) -> None:
        frame = self.selected_frame
        if frame is not None and frame.variants:
            self.post_message(ShowGraph(GraphKey(frame.rank, frame.variants[-1])))

    def _show_chain(self) -> None:
        frame = self.selected_frame
        if frame is not None:
            self.query_one("#chain", Static).update(variant_chain(self.analysis, frame))


def variant_chain(analysis: Analysis, frame: FrameInfo) -> RenderableType:
    by_id: dict[str, Recompile] = {
        r.compile_id: r for r in analysis.recompiles if (r.rank, r.frame_id) == (frame.rank, frame.frame_id)
    }
    parts: list[RenderableType] = [
        Text.assemble((frame.code_name, "bold"), (f"  {site_label(frame.path, frame.line)}", "dim"),
                      f"  {len(frame.variants)} variant(s), {frame.recompiles} recompile(s)")
    ]
    if frame.hit_recompile_limit:
        parts.append(Text("✗ hit the recompile limit: later calls run eagerly", style="bold red"))
    for position, compile_id in enumerate(frame.variants):
        graph = analysis.graph(GraphKey(frame.rank, compile_id))
        status = f"  [{graph.status}]" if graph is not None and graph.status != "ok" else ""
        parts.append(Text.assemble(("\n● ", "cyan"), (compile_id, "bold"), status))
        recompile = by_id.get(compile_id)
        if position == 0 and recompile is None:
            parts.append(Text("  first compile", style="dim"))
            continue
        if recompile is None:
            parts.append(Text("  recompiled (no guard failure recorded)", style="dim"))
            continue
        if recompile.call_site is not None:
            site = recompile.call_site
            parts.append(Text(f"  called from {site_label(site.path, site.line, site.column)}", style="dim"))
        for failure in recompile.failures:
            parts.append(Text.assemble(("  guard failed on ", "dim"), (failure.entry, "bold"),
                                       (f" ({failure.kind})", "yellow"), ": ", user_words(failure.text)))
            values = expected_actual(failure.expected, failure.actual)
            if values is not None:
                parts.append(Text("    ") + values)
            if failure.path and failure.line:
                parts.append(Text(f"    guard from {site_label(failure.path, failure.line)}"
                                  + (f": {failure.source}" if failure.source else ""), style="dim"))
    if frame.automatic_dynamic:
        parts.append(Text("\nAutomatic dynamic shapes", style="bold underline"))
        parts += [Text(f"  {user_words(decision)}") for decision in frame.automatic_dynamic]
    return Group(*parts)
