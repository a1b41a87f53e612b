"""The end-of-run summary on stderr (rich): headline counts, ranked problem sites, where the record is."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text
from tdiag.analyzer.model import Analysis, Finding
from tdiag.reports.cost_format import cost_label, runtime_line

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
MAX_ROWS = 15


def print_summary(analysis: Analysis, run_dir: Path | None, file: TextIO) -> None:
    console = Console(file=file, highlight=False, soft_wrap=False)
    s = analysis.summary
    console.print()
    console.rule("[bold]tdiag[/bold]: what torch.compile did", style="dim")
    headline = Text()
    for label, value, bad in (
        ("graphs", s.graphs, False),
        ("graph breaks", s.graph_breaks, s.graph_breaks > 0),
        ("break sites", s.break_sites, s.break_sites > 0),
        ("recompilations", s.recompiles, s.recompiles > 0),
        ("eager fallbacks", s.eager_fallbacks, s.eager_fallbacks > 0),
    ):
        headline.append(f"{value}", style="bold red" if bad else "bold green")
        headline.append(f" {label}   ")
    headline.append(f"{s.compile_time_s:.1f}s", style="bold")
    headline.append(" compiling")
    console.print(headline)
    runtime = runtime_line(s.runtime)
    if runtime:
        console.print(runtime)
    if s.kernels_by_kind:
        console.print("kernels: " + ", ".join(f"{n} {k}" for k, n in sorted(s.kernels_by_kind.items())))
    # Problems first; informational findings are counted here and listed by lint, the TUI and the HTML report.
    shown = [f for f in analysis.findings if f.severity != "info"][:MAX_ROWS]
    if shown:
        console.print(_findings_table(shown, with_cost=s.runtime is not None))
    hidden = len(analysis.findings) - len(shown)
    if hidden:
        console.print(f"... and {hidden} more finding(s), informational or beyond the top {MAX_ROWS}", style="dim")
    if not analysis.findings:
        console.print("[green]No graph breaks, no recompilations: nothing to fix.[/green]")
    for note in analysis.run.notes:
        console.print(f"note: {note}", style="dim")
    if run_dir is not None:
        console.print(f"record: {run_dir}")
        console.print(
            f"open it: [bold]tdiag tui {run_dir}[/bold] | [bold]tdiag report {run_dir} -o report.html[/bold] | "
            f"[bold]tdiag lint {run_dir}[/bold]"
        )


def _findings_table(findings: list[Finding], with_cost: bool = False) -> Table:
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", expand=False)
    table.add_column("site", no_wrap=True)
    table.add_column("code", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    if with_cost:
        table.add_column("cost", justify="right", no_wrap=True)
    table.add_column("what happened / fix")
    for f in findings:
        site = f"{f.path}:{f.line}" + (f":{f.column}" if f.column else "")
        what = Text(f.message)
        what.append("\nfix: " + f.fix, style="dim")
        cells = [site, Text(f.code, style=SEVERITY_STYLE.get(f.severity, "")), str(f.occurrences)]
        if with_cost:
            cells.append(cost_label(f.cost))
        table.add_row(*cells, what)
    return table
