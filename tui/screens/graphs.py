"""Graphs: every compiled graph, its ops, guards and forward/backward split; Enter shows its kernels."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.analyzer.events import CodeUnavailable
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Analysis, CompiledGraph, GraphKey
from tdiag.tui.format import seconds, site_label
from tdiag.tui.messages import ShowGraph
from tdiag.tui.screens.base import TdiagScreen
from tdiag.tui.widgets.row_table import RowTable, RowTableHeader, header_content
from tdiag.tui.widgets.snippet import code_block
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.widgets import Static

GUARDS_SHOWN = 30
COLUMNS = (("id", 6), ("function", 14), ("status", 7), ("ops", 4), ("kern", 4), ("time", 7))


class GraphsScreen(TdiagScreen):
    MODE = "graphs"
    BINDINGS = [Binding("enter", "open_graph", "Kernels", show=False),
                Binding("m", "module_time", "Time per module", show=False)]

    def compose(self) -> ComposeResult:
        yield self.nav()
        with Container(id="graphs-body"):
            if self.analysis.graphs:
                with Container(id="graphs-list"):
                    yield RowTableHeader(header_content(COLUMNS), id="graphs-header", classes="table-header")
                    yield RowTable(COLUMNS, self._cells, id="graphs-table")
                with VerticalScroll(id="graph-pane"):
                    yield Static(id="graph-summary")
            else:
                yield Static(Text("No graphs were compiled in this record.", style="bold"), id="no-graphs")
        yield self.footer()

    def on_mount(self) -> None:
        if not self.analysis.graphs:
            return
        table = self.query_one("#graphs-table", RowTable)
        table.set_items(list(range(len(self.analysis.graphs))))
        table.focus()
        self._show_summary()

    def _cells(self, row: int) -> list[Text]:
        graph = self.analysis.graphs[row]
        return [Text(graph.key.label), Text(graph.code_name),
                Text.assemble((graph.status, "" if graph.status == "ok" else "yellow")),  # spans survive truncate
                Text(str(graph.op_count)),
                Text(str(len(graph.kernels))), Text(seconds(graph.compile_time_s))]

    @property
    def selected_graph(self) -> CompiledGraph | None:
        if not self.analysis.graphs:
            return None
        row = self.query_one("#graphs-table", RowTable).cursor_item
        return None if row is None else self.analysis.graphs[row]

    def select_graph(self, key: GraphKey) -> None:
        for row, graph in enumerate(self.analysis.graphs):
            if graph.key == key:
                self.query_one("#graphs-table", RowTable).cursor_row = row
                self._show_summary()

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        event.stop()
        self._show_summary()

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        self.action_open_graph()

    def action_open_graph(self) -> None:
        graph = self.selected_graph
        if graph is not None:
            self.post_message(ShowGraph(graph.key))

    def action_module_time(self) -> None:
        from tdiag.tui.screens.module_time import ModuleTimeScreen

        self.app.push_screen(ModuleTimeScreen(self.analysis))

    def _show_summary(self) -> None:
        graph = self.selected_graph
        if graph is not None:
            self.query_one("#graph-summary", Static).update(graph_summary(self.analysis, graph))


def graph_summary(analysis: Analysis, graph: CompiledGraph) -> RenderableType:
    parts: list[RenderableType] = [
        Text.assemble((f"graph {graph.key.label}", "bold"), f"  {graph.code_name}",
                      (f"  {site_label(graph.path, graph.line)}", "dim")),
        Text(f"{graph.op_count} ops · {graph.node_count} nodes · {graph.input_count} inputs · "
             f"{len(graph.kernels)} kernels · compile {seconds(graph.compile_time_s)}"),
    ]
    if graph.status != "ok":
        parts.append(Text(f"status {graph.status}: {graph.fail_reason or graph.fail_type or ''}", style="yellow"))
    if graph.stages:
        parts.append(Text("stages: " + ", ".join(f"{k} {seconds(v)}" for k, v in graph.stages.items()), style="dim"))
    if graph.aot is not None:
        aot = graph.aot
        split = f"forward {aot.forward_nodes or '?'} nodes"
        split += f" / backward {aot.backward_nodes or '?'} nodes" if aot.has_backward else " (inference, no backward)"
        parts.append(Text(f"AOT split: {split}; {aot.saved_tensors} saved tensors"))
    by_graph: dict[str, int] = {}
    for kernel in graph.kernels:
        by_graph[kernel.graph] = by_graph.get(kernel.graph, 0) + 1
    if by_graph:
        parts.append(Text("kernels: " + ", ".join(f"{n} {g}" for g, n in by_graph.items()) + "  (Enter: details)"))
    if any(k.device_s and k.modules for k in graph.kernels):
        parts.append(Text("kernel time per module and per user line: m", style="dim"))
    parts.append(Text(f"\nGuards ({len(graph.guards) or graph.guard_count})", style="bold underline"))
    for guard in graph.guards[:GUARDS_SHOWN]:
        # a kind longer than the column (DIMENSION_DYNAMIC_MARKING_GUARD) still keeps a space before the text
        parts.append(Text.assemble((f"{guard.kind:<14}", "cyan"), " ", user_words(guard.text)))
    if len(graph.guards) > GUARDS_SHOWN:
        parts.append(Text(f"… {len(graph.guards) - GUARDS_SHOWN} more", style="dim"))
    fx = analysis.code.get(graph.graph_code_ref or "")
    if fx:
        parts.append(Text("\nOps (Dynamo FX graph)", style="bold underline"))
        parts.append(Text(f"  {fx}", style="yellow") if isinstance(fx, CodeUnavailable) else code_block(fx))
    return Group(*parts)
