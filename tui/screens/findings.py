"""Findings: every finding in a sortable, filterable table, with the selected one in full beside it."""

from __future__ import annotations

from rich.text import Text
from tdiag.analyzer.model import Finding
from tdiag.reports.cost_format import cost_short
from tdiag.tui.format import severity_text, site_cell
from tdiag.tui.messages import OpenInEditor, ShowGraph, ShowSource
from tdiag.tui.query import SORT_KEYS, FindingQuery, cycle, default_sort, has_cost
from tdiag.tui.screens.base import TdiagScreen
from tdiag.tui.screens.overview import all_clear
from tdiag.tui.widgets.finding_detail import FindingDetail
from tdiag.tui.widgets.row_table import RowTable, RowTableHeader, header_content
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.timer import Timer
from textual.widgets import Input, Static

COLUMNS = (("sev", 7), ("code", 6), ("site", 24), ("×", 4), ("problem", 80))
SITE_WIDTH = dict(COLUMNS)["site"]
COST_COLUMN = ("cost/step", 10)  # after "×", only for records with runtime data; the detail has the full label
DETAIL_DELAY_S = 0.06
COLUMN_SORT = {"sev": "severity", "code": "code", "site": "site", "×": "occurrences", "problem": "impact", "cost/step": "cost"}


def columns(with_cost: bool) -> tuple[tuple[str, int], ...]:
    return (*COLUMNS[:4], COST_COLUMN, *COLUMNS[4:]) if with_cost else COLUMNS


class FindingsScreen(TdiagScreen):
    MODE = "findings"
    BINDINGS = [
        Binding("slash", "search", "Search"),
        Binding("f", "cycle_family", "Family"),
        Binding("s", "cycle_severity", "Severity"),
        Binding("o", "cycle_sort", "Sort"),
        Binding("O", "reverse_sort", "Reverse", show=False),
        Binding("R", "cycle_rank", "Rank", show=False),
        Binding("d", "divergence", "Divergence", show=False),
        Binding("x", "clear_filters", "Clear", show=False),
        Binding("e", "edit", "Edit"),
        Binding("a", "apply_patch", "Apply patch", show=False),
        Binding("g", "open_graph", "Graph of the finding", show=False),
        Binding("c", "toggle_caveats", "What a cost leaves out", show=False),
        Binding("escape", "escape", "Back", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.query_state = FindingQuery()  # sort set on compose, from the record (cost when measured)
        self.visible_findings: list[int] = []  # indexes into Analysis.findings, in table order
        self._pending_selection: int | None = None
        self._detail_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        self.with_cost = has_cost(self.analysis)
        if self.query_state == FindingQuery():
            self.query_state = self._fresh_query()
        table_columns = columns(self.with_cost)
        yield self.nav()
        yield Static(id="filter-bar")
        if self.analysis.findings:
            yield Input(placeholder="search code, name, message, path…  (Enter keeps, Escape clears)", id="search")
        with Container(id="findings-body"):
            if self.analysis.findings:
                with Container(id="findings-list"):
                    yield RowTableHeader(header_content(table_columns, "screen.sort_column"), id="findings-header")
                    yield RowTable(table_columns, self._cells, id="findings-table")
                yield FindingDetail(id="finding-detail")
            else:
                yield Static(all_clear(self.analysis), id="no-findings")
        yield self.footer()

    def on_mount(self) -> None:
        if not self.analysis.findings:
            self._update_filter_bar()
            return
        self.refresh_rows()
        if self._pending_selection is not None:
            self.select_finding(self._pending_selection)
        self._focus_table()

    # -- state -----------------------------------------------------------------------------------------

    @property
    def selected_finding(self) -> Finding | None:
        index = self.selected_index
        return None if index is None else self.analysis.findings[index]

    @property
    def selected_index(self) -> int | None:
        if not self.analysis.findings:
            return None
        return self.query_one("#findings-table", RowTable).cursor_item

    def select_finding(self, index: int) -> None:
        """Show one finding, clearing filters that hide it."""
        if not self.is_mounted or not self.analysis.findings:
            self._pending_selection = index
            return
        self._pending_selection = None
        if index not in self.visible_findings:
            self.query_state = FindingQuery(sort=self.query_state.sort, descending=self.query_state.descending)
            self.refresh_rows()
        table = self.query_one("#findings-table", RowTable)
        table.cursor_row = self.visible_findings.index(index)
        self._show_detail()
        table.focus()

    def refresh_rows(self) -> None:
        if not self.analysis.findings:
            return
        keep = self.selected_index
        self.visible_findings = self.query_state.apply(self.index)
        table = self.query_one("#findings-table", RowTable)
        position = {item: row for row, item in enumerate(self.visible_findings)}
        table.set_items(self.visible_findings, position.get(keep, 0) if keep is not None else 0)
        self._update_filter_bar()
        self._show_detail()

    def _cells(self, index: int) -> list[Text]:
        f = self.analysis.findings[index]
        site = site_cell(f.path, f.line, f.column, SITE_WIDTH)
        cells = [severity_text(f.severity), Text(f.code), site, Text(str(f.occurrences)), Text(f.message)]
        if self.with_cost:
            label = cost_short(f.cost)
            cells.insert(4, Text(label, style="bold" if f.cost is not None and f.cost.basis == "measured" else "dim"))
        return cells

    def _fresh_query(self) -> FindingQuery:
        return FindingQuery(sort=default_sort(self.analysis))

    def _update_filter_bar(self) -> None:
        total = len(self.analysis.findings)
        text = Text(f"{len(self.visible_findings)} of {total} findings", style="bold")
        text.append("  " + self.query_state.describe(), style="dim")
        if self.index.multi_rank:
            text.append("  R: rank  d: divergence", style="dim")
        self.query_one("#filter-bar", Static).update(text, layout=False)  # one line tall, always

    def action_toggle_caveats(self) -> None:
        self.query_one("#finding-detail", FindingDetail).toggle_caveats(self.analysis.sources)

    def _show_detail(self) -> None:
        detail = self.query_one("#finding-detail", FindingDetail)
        detail.show(self.selected_finding, self.analysis.sources)

    # -- events ----------------------------------------------------------------------------------------

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        event.stop()
        if self._detail_timer is not None:
            self._detail_timer.stop()
            self._detail_timer = None
        if self.query_one("#finding-detail", FindingDetail).finding is self.selected_finding:
            return  # a refilter that kept the selection has already shown it
        # Holding a key down should move the cursor at key speed; the detail pane follows once it settles.
        self._detail_timer = self.set_timer(DETAIL_DELAY_S, self._show_detail)

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        finding = self.selected_finding
        if finding is not None:
            self.post_message(ShowSource(finding.path, finding.line))

    def action_sort_column(self, label: str) -> None:
        sort = COLUMN_SORT.get(label, "impact")
        if sort == self.query_state.sort:
            self.query_state.descending = not self.query_state.descending
        else:
            self.query_state.sort, self.query_state.descending = sort, False
        self.refresh_rows()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_state.text = event.value
        self.refresh_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._focus_table()

    # -- actions ---------------------------------------------------------------------------------------

    def action_search(self) -> None:
        if not self.analysis.findings:
            self.notify("No findings to search.", severity="information")
            return
        search = self.query_one("#search", Input)
        search.display = True
        search.focus()

    async def action_escape(self) -> None:
        if not self.analysis.findings:
            await self.tdiag.action_back()
            return
        search = self.query_one("#search", Input)
        if search.has_focus or self.query_state.text:
            search.value = ""
            search.display = False
            self._focus_table()
        else:
            await self.tdiag.action_back()

    def action_cycle_family(self) -> None:
        self.query_state.family = cycle(self.index.families, self.query_state.family)
        self.refresh_rows()

    def action_cycle_severity(self) -> None:
        self.query_state.severity = cycle(self.index.severities, self.query_state.severity)
        self.refresh_rows()

    def action_cycle_sort(self) -> None:
        self.query_state.sort = cycle(list(SORT_KEYS), self.query_state.sort) or SORT_KEYS[0]
        self.refresh_rows()

    def action_reverse_sort(self) -> None:
        self.query_state.descending = not self.query_state.descending
        self.refresh_rows()

    def action_cycle_rank(self) -> None:
        if self.index.multi_rank:
            self.query_state.rank = cycle(self.index.ranks, self.query_state.rank)
            self.refresh_rows()
        else:
            self.notify("This record has a single rank.", severity="information")

    def action_divergence(self) -> None:
        self.query_state.family = None if self.query_state.family == "DIV" else "DIV"
        if self.query_state.family and "DIV" not in self.index.families:
            self.notify("No rank-divergence findings in this record.", severity="information")
        self.refresh_rows()

    def action_clear_filters(self) -> None:
        self.query_state = self._fresh_query()
        if self.analysis.findings:
            self.query_one("#search", Input).value = ""
        self.refresh_rows()

    def action_edit(self) -> None:
        finding = self.selected_finding
        if finding is not None:
            self.post_message(OpenInEditor(finding.path, finding.line))

    def action_apply_patch(self) -> None:
        """Show the finding's patch and write it after confirmation (``tdiag.fixing``: refusals, backup, undo)."""
        finding = self.selected_finding
        if finding is None:
            return
        if finding.suggestion is None or not finding.suggestion.patch:
            self.notify("This finding has no patch: its fix is in the detail pane.", severity="information")
            return
        from tdiag.tui.screens.apply_patch import ApplyPatchScreen

        def done(message: str | None) -> None:
            if message:
                self.notify(message, timeout=10)

        self.app.push_screen(ApplyPatchScreen(self.analysis, finding, getattr(self.app, "record_dir", None)), done)

    def action_open_graph(self) -> None:
        """The compiled graph the finding concerns, on the rank the list is filtered to when it names one."""
        finding = self.selected_finding
        if finding is None:
            return
        keys = finding.graph_keys
        if self.query_state.rank is not None:
            keys = [k for k in keys if k.rank == self.query_state.rank] or keys
        key = next((k for k in keys if self.analysis.graph(k) is not None), None)
        if key is None:
            self.notify("No compiled graph is recorded for this finding.", severity="information")
            return
        self.post_message(ShowGraph(key))

    def _focus_table(self) -> None:
        if self.analysis.findings:
            self.query_one("#findings-table", RowTable).focus()
        else:
            self.set_focus(None)
