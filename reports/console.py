"""The end-of-run summary on stderr (rich): headline counts, ranked problem sites, where the record is."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.text import Text
from tdiag.analyzer import capture_health
from tdiag.analyzer.model import Analysis, Finding
from tdiag.reports.cost_format import cost_label, runtime_line
from tdiag.reports.site_text import shorten_site

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
MAX_ROWS = 15
GAP = "  "
# Below this many columns for the message beside the site, the message goes on its own lines under the site.
MIN_MESSAGE_WIDTH = 40
MESSAGE_INDENT = "    "


def print_summary(
    analysis: Analysis, run_dir: Path | None, file: TextIO, width: int | None = None, force_terminal: bool | None = None
) -> None:
    """``width``/``force_terminal``: as rich's Console takes them (default: the terminal's, 80 columns in a CI log)."""
    console = Console(file=file, highlight=False, soft_wrap=False, width=width, force_terminal=force_terminal)
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
    for i, line in enumerate(capture_health.lines(analysis.run.capture_problems)):
        console.print(Text(("warning: " if i == 0 else "  ") + line, style="bold red" if i == 0 else "red"), soft_wrap=True)
    runtime = runtime_line(s.runtime)
    if runtime:
        console.print(runtime)
    if s.kernels_by_kind:
        console.print("kernels: " + ", ".join(f"{n} {k}" for k, n in sorted(s.kernels_by_kind.items())))
    # Problems first; informational findings are counted here and listed by lint, the TUI and the HTML report.
    shown = [f for f in analysis.findings if f.severity != "info"][:MAX_ROWS]
    if shown:
        for line in findings_lines(shown, console.width, with_cost=s.runtime is not None):
            console.print(line, soft_wrap=True)  # lines are already fitted; a word longer than a line is never cut
    hidden = len(analysis.findings) - len(shown)
    if hidden:
        console.print(f"... and {hidden} more finding(s), informational or beyond the top {MAX_ROWS}", style="dim")
    if not analysis.findings and not analysis.run.capture_problems:  # an incomplete capture was said above
        tone, verdict = capture_health.empty_verdict(analysis)
        console.print(verdict, style="green" if tone == "clear" else "yellow")
    for note in analysis.run.notes:
        console.print(f"note: {note}", style="dim")
    if run_dir is not None:
        console.print(f"record: {run_dir}")
        console.print(
            f"open it: [bold]tdiag tui {run_dir}[/bold] | [bold]tdiag report {run_dir} -o report.html[/bold] | "
            f"[bold]tdiag lint {run_dir}[/bold]"
        )


def findings_lines(findings: list[Finding], width: int, with_cost: bool = False) -> list[Text]:
    """The findings as lines fitted to ``width``: a table when the message gets at least MIN_MESSAGE_WIDTH columns
    beside the site, otherwise each site on a line with the message below it. Sites shorten from the left (file
    name and line stay); messages wrap between words only."""
    rows = [_cells(f, with_cost) for f in findings]
    headers = ["site", "code", "n"] + (["cost"] if with_cost else [])
    fixed = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers) if i > 0]
    fixed_width = sum(fixed) + len(GAP) * len(fixed)
    longest_site = max(len(headers[0]), *(len(r[0]) for r in rows))
    site_width = min(longest_site, max(len(headers[0]), width // 3))
    message_width = width - site_width - len(GAP) - fixed_width
    if message_width >= MIN_MESSAGE_WIDTH:
        return _table_lines(findings, rows, headers, [site_width, *fixed], message_width)
    return _stacked_lines(findings, rows, [min(longest_site, width - fixed_width), *fixed], width)


def _cells(f: Finding, with_cost: bool) -> list[str]:
    site = f"{f.path}:{f.line}" + (f":{f.column}" if f.column else "")
    return [site, f.code, str(f.occurrences)] + ([cost_label(f.cost)] if with_cost else [])


def _table_lines(findings, rows, headers, widths, message_width) -> list[Text]:
    header = Text(_join([h.ljust(w) for h, w in zip(headers, widths)]) + GAP + "what happened / fix", style="bold")
    lines = [header]
    indent = " " * (sum(widths) + len(GAP) * len(widths))
    for f, row in zip(findings, rows):
        what = _wrapped(f, message_width)
        first = _row_text(f, row, widths)
        first.append(GAP)
        first.append_text(what[0])
        lines.append(first)
        lines.extend(Text(indent) + rest for rest in what[1:])
    return lines


def _stacked_lines(findings, rows, widths, width) -> list[Text]:
    lines = []
    for f, row in zip(findings, rows):
        lines.append(_row_text(f, row, widths))
        lines.extend(Text(MESSAGE_INDENT) + line for line in _wrapped(f, width - len(MESSAGE_INDENT)))
    return lines


def _row_text(f: Finding, row: list[str], widths: list[int]) -> Text:
    """Site, code, count[, cost]: the site shortened to its column, numbers right-aligned."""
    site, code, *numbers = row
    text = Text(shorten_site(site, widths[0]).ljust(widths[0]))
    text.append(GAP)
    text.append(code.ljust(widths[1]), style=SEVERITY_STYLE.get(f.severity, ""))
    for value, w in zip(numbers, widths[2:]):
        text.append(GAP + value.rjust(w))
    return text


def _wrapped(f: Finding, width: int) -> list[Text]:
    """Message, then ``fix: ...`` dimmed, each wrapped between words (a word wider than the line keeps its line)."""
    wrap = textwrap.TextWrapper(width=max(width, 1), break_long_words=False, break_on_hyphens=False)
    lines = [Text(line) for line in wrap.wrap(f.message) or [""]]
    lines += [Text(line, style="dim") for line in wrap.wrap("fix: " + f.fix)]
    return lines


def _join(cells: list[str]) -> str:
    return GAP.join(cells)
