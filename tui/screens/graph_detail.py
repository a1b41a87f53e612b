"""One graph's kernels: fusion groups, lowering kind, covered source lines and the generated code."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.analyzer.events import CodeUnavailable
from tdiag.analyzer.kernel_modules import module_label
from tdiag.analyzer.model import Analysis, CompiledGraph, Kernel
from tdiag.reports.graph_facts import graph_facts
from tdiag.tui.format import seconds, site_label
from tdiag.tui.messages import ShowSource
from tdiag.tui.widgets.key_bar import KeyBar
from tdiag.tui.widgets.snippet import code_block
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

CODE_LINES_SHOWN = 80


class GraphDetailScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.back", "Back"),
        Binding("enter", "open_source", "Source", show=False),
    ]

    def __init__(self, analysis: Analysis, graph: CompiledGraph) -> None:
        super().__init__(id="graph-detail")
        self.analysis = analysis
        self.graph = graph

    def compose(self) -> ComposeResult:
        g = self.graph
        title = Text.assemble((f"graph {g.key.label}", "bold"), f"  {g.code_name}  ",
                              (site_label(g.path, g.line), "dim"), f"  {len(g.kernels)} kernels · ",
                              f"compile {seconds(g.compile_time_s)}", ("   Escape: back", "dim"))
        yield Static(title, id="graph-title")
        facts = graph_facts(g)
        if facts:
            yield Static(Text("\n".join(f"{label}: {value}" for label, value in facts)), id="graph-facts")
        with Container(id="graph-detail-body"):
            if g.kernels:
                yield DataTable(id="kernels-table", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="kernel-pane"):
                    yield Static(id="kernel-detail")
            else:
                notes = "\n".join(g.kernel_notes) or "No kernels recorded for this graph."
                yield Static(Text(notes, style="dim"), id="no-kernels")
        yield KeyBar()

    def on_mount(self) -> None:
        if not self.graph.kernels:
            return
        table = self.query_one("#kernels-table", DataTable)
        for label, width in (("kernel", 28), ("kind", 11), ("backend", 7), ("graph", 8), ("nodes", 5)):
            table.add_column(label, width=width)
        for kernel in self.graph.kernels:
            table.add_row(kernel.name, kernel.kind, kernel.backend, kernel.graph, str(len(kernel.fused_nodes)))
        table.focus()
        self._show_kernel()

    @property
    def selected_kernel(self) -> Kernel | None:
        if not self.graph.kernels:
            return None
        row = self.query_one("#kernels-table", DataTable).cursor_row
        return self.graph.kernels[row] if 0 <= row < len(self.graph.kernels) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_kernel()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_source()

    def action_open_source(self) -> None:
        kernel = self.selected_kernel
        if kernel is not None and kernel.source_lines:
            ref = kernel.source_lines[0]
            self.post_message(ShowSource(ref.path, ref.line))

    def _show_kernel(self) -> None:
        kernel = self.selected_kernel
        if kernel is not None:
            self.query_one("#kernel-detail", Static).update(kernel_detail(self.analysis, kernel))


def kernel_detail(analysis: Analysis, kernel: Kernel) -> RenderableType:
    parts: list[RenderableType] = [
        Text.assemble((kernel.name, "bold"), f"  {kernel.kind} · {kernel.backend} · {kernel.graph}"),
    ]
    if kernel.fallback_reason:
        parts.append(Text(f"fallback: {kernel.fallback_reason}", style="yellow"))
    if kernel.fused_nodes:
        parts.append(Text.assemble(("fusion group: ", "dim"), ", ".join(kernel.fused_nodes)))
    module = module_label(kernel)
    if len(kernel.modules) > 1 or any(m.built_at for m in kernel.modules):
        # every module the kernel computes, each beside the user's line that built it (issue 23)
        parts.append(Text("modules (built at):", style="dim"))
        for m in kernel.modules:
            name = f"{m.path} ({m.cls})" if m.path else m.cls
            built = (site_label(m.built_at.path, m.built_at.line), "cyan") if m.built_at else ("", "")
            parts.append(Text.assemble(f"  {name}  ", built, ("  " + ((m.built_at.code or "") if m.built_at else ""),
                                                                 "dim")))
    elif module:
        parts.append(Text.assemble(("module: ", "dim"), module))
    if kernel.frame is not None:
        parts.append(Text.assemble(("innermost frame: ", "dim"), site_label(kernel.frame.path, kernel.frame.line),
                                   ("  " + (kernel.frame.code or ""), "dim")))
    if kernel.launch:
        parts.append(Text("launch: " + ", ".join(f"{k}={v}" for k, v in kernel.launch.items()), style="dim"))
    parts.append(Text("\nSource lines covered (Enter opens the first)", style="bold underline"))
    if kernel.source_lines:
        for ref in kernel.source_lines:
            code = ref.code or _line_of(analysis, ref.path, ref.line)
            parts.append(Text.assemble(f"  {site_label(ref.path, ref.line)}  ", (code or "", "dim")))
    else:
        parts.append(Text("  none recorded", style="dim"))
    code = analysis.code.get(kernel.code_ref or "")
    parts.append(Text("\nGenerated code", style="bold underline"))
    if isinstance(code, CodeUnavailable):  # recorded, but the record moved or went away since it was read
        parts.append(Text(f"  {code}", style="yellow"))
    else:
        parts.append(code_block(kernel_excerpt(code, kernel.name)) if code else Text("  not recorded", style="dim"))
    return Group(*parts)


def kernel_excerpt(code: str, name: str) -> str:
    """The kernel's own definition when ``code`` is a whole output module holding many kernels."""
    lines = code.splitlines()
    start = next((i for i, line in enumerate(lines) if f"def {name}(" in line or line.startswith(f"{name} =")), None)
    if start is None:
        return "\n".join(lines[:CODE_LINES_SHOWN])
    while start > 0 and lines[start - 1].startswith("@"):
        start -= 1
    end = start + 1
    while end < len(lines) and end - start < CODE_LINES_SHOWN:
        if lines[end] and not lines[end][0].isspace() and not lines[end].startswith(("def ", ")")) \
                and lines[end - 1].strip() == "":
            break
        end += 1
    return "\n".join(lines[start:end]).rstrip()


def _line_of(analysis: Analysis, path: str, line: int) -> str | None:
    source = analysis.sources.get(path)
    if source is None:
        return None
    lines = source.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else None
