"""The per-rank heat map (``k``, multi-rank runs): one row per rank, one column per metric (graph breaks, recompiles,
compile time, step time, communication), each cell shaded on its column's own scale, outlier ranks marked ``!`` and
listed above the table. Rows come from the shared per-rank view (``analyzer.rank_view``), the same as the HTML
report's heat map."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from tdiag.analyzer.model import Analysis
from tdiag.analyzer.rank_view import RankView, rank_view
from tdiag.tui.widgets.key_bar import KeyBar
from tdiag.tui.widgets.row_table import RowTable, RowTableHeader, header_content
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

SHADES = ("#2a2a2a", "#5a3d1a", "#8a4f12", "#b5540c", "#d84315")  # column scale, low to high
OUTLIER_LIST = 8  # outliers listed above the table; every one is marked in it


def _columns(view: RankView) -> list[tuple[str, int]]:
    return [("rank", 5), ("node", 12)] + [(m.label + (f" {m.unit}" if m.unit else ""), 14) for m in view.metrics]


class RanksScreen(Screen):
    BINDINGS = [Binding("escape", "app.back", "Back")]

    def __init__(self, analysis: Analysis) -> None:
        super().__init__(id="ranks")
        self.view = rank_view(analysis)
        self.flagged = {(o.rank, o.metric) for o in self.view.outliers} if self.view else set()
        self.top = {m.key: max((r.values.get(m.key) or 0 for r in self.view.rows), default=0)
                    for m in self.view.metrics} if self.view else {}

    def compose(self) -> ComposeResult:
        if self.view is None:
            yield Static(Text("One process: the per-rank view needs a run of several ranks.", style="dim"),
                         id="ranks-title")
        else:
            yield Static(self._title(), id="ranks-title")
            columns = _columns(self.view)
            yield RowTableHeader(header_content(columns), id="ranks-header", classes="table-header")
            yield RowTable(columns, self._cells, id="ranks-table")
        yield KeyBar()

    def on_mount(self) -> None:
        if self.view is not None:
            table = self.query_one("#ranks-table", RowTable)
            table.set_items(list(range(len(self.view.rows))))
            table.focus()

    def _title(self) -> Text:
        view = self.view
        nodes = f" on {view.hosts} nodes" if view.hosts > 1 else ""
        text = Text.assemble((f"Per rank: {len(view.rows)} ranks{nodes}", "bold"),
                             ("  each column shaded on its own scale; ! an outlier rank  Escape: back", "dim"))
        if view.outliers:
            text.append("\nOutlier ranks: ", style="bold red")
            text.append("; ".join(o.text() for o in view.outliers[:OUTLIER_LIST]))
            if len(view.outliers) > OUTLIER_LIST:
                text.append(f"; and {len(view.outliers) - OUTLIER_LIST} more (marked !)")
        else:
            text.append("\nNo rank stands out from the others.", style="green")
        return text

    def _cells(self, index: int) -> list[Text]:
        row = self.view.rows[index]
        cells = [Text(str(row.rank)), Text(row.host or "-", style="cyan")]
        for metric in self.view.metrics:
            value = row.values.get(metric.key)
            if value is None:
                cells.append(Text("-", style="dim"))
                continue
            top = self.top.get(metric.key) or 1
            shade = SHADES[min(len(SHADES) - 1, int(value / top * (len(SHADES) - 1) + 0.5))]
            outlier = (row.rank, metric.key) in self.flagged
            label = (f"{value:g}" if metric.count else f"{value:.3g}") + (" !" if outlier else "")
            cells.append(Text(label, style=Style(bgcolor=shade, bold=outlier, color="white" if outlier else None)))
        return cells
