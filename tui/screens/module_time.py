"""Where the kernel time goes: measured kernel time per module, or per user line that built the modules, forward and
backward apart (``m`` from Graphs). Rows come from the shared view-model (``reports.view.module_time_rows``), the
same rows as the HTML report's table; a click on a column header (or ``s``) sorts, ``l`` switches modules / lines."""

from __future__ import annotations

from rich.text import Text
from tdiag.analyzer.model import Analysis
from tdiag.reports.view import ModuleTimeRow, module_time_rows
from tdiag.tui.widgets.key_bar import KeyBar
from tdiag.tui.widgets.row_table import RowTable, RowTableHeader, header_content
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

COLUMNS = (("pass", 8), ("module", 34), ("built at", 22), ("kern", 4), ("ms", 9), ("share", 6))
SORT_KEYS = {
    "pass": lambda r: r.role, "module": lambda r: r.module, "built at": lambda r: r.built_at,
    "kern": lambda r: -r.kernels, "ms": lambda r: -r.seconds, "share": lambda r: -r.share,
}


class ModuleTimeScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.back", "Back"),
        Binding("l", "toggle_lines", "Modules/lines"),
        Binding("s", "next_sort", "Sort"),
    ]

    def __init__(self, analysis: Analysis) -> None:
        super().__init__(id="module-time")
        self.analysis = analysis
        self.by = "module"
        self.sort = "ms"
        self.descending = False
        self.rows: list[ModuleTimeRow] = []

    def compose(self) -> ComposeResult:
        yield Static(id="module-time-title")
        if module_time_rows(self.analysis):
            yield RowTableHeader(header_content(COLUMNS, "screen.sort_column"), id="module-time-header",
                                 classes="table-header")
            yield RowTable(COLUMNS, self._cells, id="module-time-table")
        else:
            yield Static(Text("No measured kernel time per module: the record has no runtime window with kernel "
                              "device time (CUDA), or no kernel was attributed to a module.", style="dim"),
                         id="no-kernels")
        yield KeyBar()

    def on_mount(self) -> None:
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        self.rows = sorted(module_time_rows(self.analysis, by=self.by), key=SORT_KEYS[self.sort],
                           reverse=self.descending)
        what = "per module" if self.by == "module" else "per user line that built the modules"
        total = sum(r.seconds for r in self.rows)
        runtime = self.analysis.summary.runtime
        on_cpu = not (runtime is not None and runtime.device == "cuda")
        self.query_one("#module-time-title", Static).update(Text.assemble(
            ("Kernel time " + what, "bold"), f"  {total * 1e3:.3f} ms measured  ",
            ("(CPU: extern and fallback calls only)  " if on_cpu else "", "yellow"),
            ("(a fused kernel's time is split among the modules it fused)  l: modules/lines  s: sort  Escape: back",
             "dim")))
        if self.rows:
            self.query_one("#module-time-table", RowTable).set_items(list(range(len(self.rows))))
            self.query_one("#module-time-table", RowTable).focus()

    def _cells(self, row: int) -> list[Text]:
        r = self.rows[row]
        return [Text(r.role), Text(r.module), Text(r.built_at, style="cyan"), Text(str(r.kernels)),
                Text(f"{r.seconds * 1e3:.3f}"), Text(f"{r.share:.1%}")]

    def action_sort_column(self, label: str) -> None:
        if label == self.sort:
            self.descending = not self.descending
        else:
            self.sort, self.descending = label, False
        self._refresh_rows()

    def action_next_sort(self) -> None:
        labels = [label for label, _ in COLUMNS]
        self.action_sort_column(labels[(labels.index(self.sort) + 1) % len(labels)])

    def action_toggle_lines(self) -> None:
        self.by = "line" if self.by == "module" else "module"
        self._refresh_rows()
