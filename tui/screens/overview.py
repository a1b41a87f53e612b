"""Overview: the run's headline numbers and the top problems, ranked by impact."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from tdiag.analyzer import capture_health
from tdiag.analyzer.crash import headline as crash_headline
from tdiag.analyzer.model import Analysis
from tdiag.tui.format import seconds, severity_text, site_cell
from tdiag.tui.messages import ShowFinding
from tdiag.tui.screens.base import TdiagScreen
from tdiag.tui.widgets.row_table import RowTable, RowTableHeader, header_content
from tdiag.tui.widgets.runtime_breakdown import runtime_breakdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import Static

TOP_PROBLEMS = 50
COLUMNS = (("sev", 7), ("code", 6), ("site", 22), ("×", 4), ("problem", 80))
SITE_WIDTH = dict(COLUMNS)["site"]


class OverviewScreen(TdiagScreen):
    MODE = "overview"
    BINDINGS = [Binding("enter", "open_selected", "Open finding", show=False)]

    def compose(self) -> ComposeResult:
        yield self.nav()
        yield Static(run_line(self.analysis), id="run-info")
        problems = record_problems(self.analysis)
        if problems is not None:
            yield Static(problems, id="record-problems")
        stopped = crash_headline(self.analysis)
        if stopped:
            yield Static(Text(f"✗ {stopped}", style="bold red"), id="crash")
        yield Static(headline(self.analysis), id="headline")
        runtime = runtime_breakdown(self.analysis.summary.runtime)
        if runtime is not None:
            yield Static(runtime, id="runtime")
        vs_eager = vs_eager_line(self.analysis)
        if vs_eager is not None:
            yield Static(vs_eager, id="vs-eager")
        if self.analysis.findings:
            yield Static(self._top_title(), id="top-title")
            with Container(id="top-list"):
                yield RowTableHeader(header_content(COLUMNS), id="top-header", classes="table-header")
                yield RowTable(COLUMNS, self._cells, id="top-findings")
        else:
            yield Static(all_clear(self.analysis), id="all-clear")
        yield self.footer()

    def _top_title(self) -> Text:
        total = len(self.analysis.findings)
        shown = min(total, TOP_PROBLEMS)
        more = f" (of {total}; press 2 for all)" if total > shown else ""
        runtime = self.analysis.summary.runtime
        order = "measured cost" if runtime is not None and runtime.status == "measured" else "impact"
        return Text(f"Top problems by {order}{more}  ·  Enter opens one", style="bold")

    def on_mount(self) -> None:
        if not self.analysis.findings:
            return
        table = self.query_one("#top-findings", RowTable)
        table.set_items(list(range(min(TOP_PROBLEMS, len(self.analysis.findings)))))
        table.focus()

    def _cells(self, index: int) -> list[Text]:
        f = self.analysis.findings[index]
        return [severity_text(f.severity), Text(f.code), site_cell(f.path, f.line, f.column, SITE_WIDTH),
                Text(str(f.occurrences)), Text(f.message)]

    @property
    def selected_index(self) -> int | None:
        if not self.analysis.findings:
            return None
        return self.query_one("#top-findings", RowTable).cursor_item

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        self.action_open_selected()

    def action_open_selected(self) -> None:
        if self.selected_index is not None:
            self.post_message(ShowFinding(self.selected_index))


def run_line(analysis: Analysis) -> Text:
    run = analysis.run
    text = Text(run.command or " ".join(run.argv) or "tdiag", style="bold")
    details = [f"torch {run.torch_version}" if run.torch_version else None, run.device,
               f"ran {seconds(run.duration_s)}" if run.duration_s is not None else None,
               f"ranks {', '.join(map(str, run.ranks))}" if len(run.ranks) > 1 else None]
    text.append("  " + " · ".join(d for d in details if d), style="dim")
    if not run.complete:
        text.append(f"  record incomplete ({run.exit_reason or 'unknown'})", style="bold yellow")
    elif run.exit_code:
        text.append(f"  program exited {run.exit_code}", style="bold yellow")
    return text


def record_problems(analysis: Analysis) -> Group | None:
    run = analysis.run
    if (not run.record_problems and not run.notes and not run.incomplete_ranks and not capture_health.is_incomplete(run)
            and not run.torch_notice):
        return None
    capture = capture_health.incomplete_lines(run)
    lines = [Text(f"⚠ {line}", style="bold red" if i == 0 else "red") for i, line in enumerate(capture)]
    if run.torch_notice:  # a torch outside the tested matrix: said, never refused
        lines.insert(0, Text(f"note: {run.torch_notice}", style="yellow"))
    lines += [Text(f"⚠ {p}", style="yellow") for p in run.record_problems]
    if run.record_problems:
        lines.insert(len(capture), Text("The record is damaged; showing what could be read:", style="bold yellow"))
    if run.incomplete_ranks:
        lines.append(Text(f"⚠ incomplete ranks: {', '.join(map(str, run.incomplete_ranks))}", style="yellow"))
    lines += [Text(f"note: {n}", style="dim") for n in run.notes]
    return Group(*lines)


def headline(analysis: Analysis) -> Group:
    s = analysis.summary
    kernels = ", ".join(f"{n} {kind}" for kind, n in sorted(s.kernels_by_kind.items(), key=lambda kv: -kv[1]))
    severities = ", ".join(f"{s.findings_by_severity[k]} {k}" for k in ("error", "warning", "info")
                           if s.findings_by_severity.get(k))
    pairs = [
        ("graphs", str(s.graphs), "graph breaks", f"{s.graph_breaks} at {s.break_sites} sites"),
        ("recompiles", str(s.recompiles), "fell back to eager", f"{s.eager_fallbacks} frames"),
        ("compile time", seconds(s.compile_time_s), "frames compiled", str(s.frames_compiled)),
    ]
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(style="bold", ratio=1)
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(style="bold", ratio=1)
    for row in pairs:
        grid.add_row(*row)
    # Long lists get a whole row each, so they wrap within the screen instead of squeezing a column.
    wide = Table.grid(padding=(0, 1), expand=True)
    wide.add_column(style="dim", no_wrap=True)
    wide.add_column(style="bold", ratio=1)
    wide.add_row("kernels", kernels or "none recorded")
    wide.add_row("findings", severities or "none")
    return Group(grid, wide)


def vs_eager_line(analysis: Analysis) -> Text | None:
    """The measured step against eager (tdiag run --vs-eager), or that it was not compared; None: nothing to say."""
    vs = analysis.summary.vs_eager
    if vs is None or not vs.line:
        return None
    text = Text(vs.line, style={"slower": "bold red", "faster": "green"}.get(vs.verdict or "", "dim"))
    if vs.detail:
        text.append("\n" + vs.detail, style="dim")
    return text


def all_clear(analysis: Analysis) -> Text:
    tone, verdict = capture_health.empty_verdict(analysis)
    if tone == "incomplete":  # never an all-clear over a capture that missed events
        return Text(f"{verdict} (see above)", style="bold red")
    if tone == "stopped":
        return Text(verdict, style="bold red")
    if tone == "nothing":
        return Text(verdict, style="bold yellow")
    text = Text(f"✓ {verdict}\n", style="bold green")
    text.append(f"{analysis.summary.graphs} graph(s) compiled.", style="")
    if analysis.run.record_problems:
        text.append("\nThe record was damaged, so some events may be missing (see above).", style="yellow")
    return text
