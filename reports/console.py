"""The end-of-run summary on stderr: headline counts, ranked problem sites, where the record is.

The summary is laid out once, as lines of (text, style) segments fitted to the width, and then written either by
rich (a terminal, or colour forced) or as plain text (a CI log). A CI log gets no styling, so it does not pay rich's
import (~25 ms, a third of the end-of-run cost of a short program; see benchmarks/bench_overhead.py).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Literal, TextIO

from tdiag.analyzer import capture_health
from tdiag.analyzer.crash import headline as crash_headline
from tdiag.analyzer.model import Analysis, Finding
from tdiag.reports.cost_format import cost_label, lower_bound_notes, runtime_detail_lines, runtime_line
from tdiag.reports.site_text import shorten_site
from tdiag.analyzer.fix_status import label as fix_label

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
MAX_ROWS = 15
GAP = "  "
# Below this many columns for the message beside the site, the message goes on its own lines under the site.
MIN_MESSAGE_WIDTH = 40
MESSAGE_INDENT = "    "
CI_LOG_WIDTH = 80  # rich's width for a stream that is not a terminal, when COLUMNS does not say otherwise

Segments = list[tuple[str, str]]  # (text, rich style; "" for none)
# "rule": a titled horizontal rule; "fitted": laid out to the width already, never re-wrapped; "wrap": wrapped
# between words at the width.
Line = tuple[Literal["rule", "fitted", "wrap"], Segments]


def print_summary(
    analysis: Analysis, run_dir: Path | None, file: TextIO, width: int | None = None, force_terminal: bool | None = None
) -> None:
    """``width``/``force_terminal``: as rich's Console takes them (default: the terminal's, 80 columns in a CI log)."""
    if force_terminal if force_terminal is not None else _styled(file):
        from rich.console import Console

        console = Console(file=file, highlight=False, soft_wrap=False, width=width, force_terminal=force_terminal)
        _write_rich(console, summary_lines(analysis, run_dir, console.width))
    else:
        width = width or _env_columns() or CI_LOG_WIDTH
        file.write("".join(line + "\n" for line in plain_lines(summary_lines(analysis, run_dir, width), width)))


def summary_lines(analysis: Analysis, run_dir: Path | None, width: int) -> list[Line]:
    s = analysis.summary
    lines: list[Line] = [("fitted", []), ("rule", [("tdiag", "bold"), (": what torch.compile did", "")])]
    headline: Segments = []
    for label, value, bad in (
        ("graphs", s.graphs, False),
        ("graph breaks", s.graph_breaks, s.graph_breaks > 0),
        ("break sites", s.break_sites, s.break_sites > 0),
        ("recompilations", s.recompiles, s.recompiles > 0),
        ("eager fallbacks", s.eager_fallbacks, s.eager_fallbacks > 0),
    ):
        headline += [(f"{value}", "bold red" if bad else "bold green"), (f" {label}   ", "")]
    headline += [(f"{s.compile_time_s:.1f}s", "bold"), (" compiling", "")]
    lines.append(("wrap", headline))
    from tdiag.reports.cache_text import cache_line

    cache = cache_line(s)
    if cache:
        lines.append(("wrap", [(cache, "")]))
    stopped = crash_headline(analysis)
    if stopped:
        lines.append(("wrap", [(stopped, "bold red")]))
    if analysis.run.torch_notice:
        lines.append(("wrap", [("note: " + analysis.run.torch_notice, "yellow")]))
    for i, line in enumerate(capture_health.incomplete_lines(analysis.run)):
        lines.append(("fitted", [(("warning: " if i == 0 else "  ") + line, "bold red" if i == 0 else "red")]))
    runtime = runtime_line(s.runtime)
    if runtime:
        lines.append(("wrap", [(runtime, "")]))
        lines += [("wrap", [(detail, "dim")]) for detail in runtime_detail_lines(s.runtime, analysis.sources)]
    vs = s.vs_eager
    if vs is not None and vs.line:  # compiled vs eager (tdiag run --vs-eager), or that it was not compared
        tone = {"slower": "bold red", "faster": "green"}.get(vs.verdict or "", "" if vs.status == "measured" else "dim")
        lines.append(("wrap", [(vs.line, tone)]))
        if vs.detail:
            lines.append(("wrap", [(vs.detail, "dim")]))
    if s.kernels_by_kind:
        lines.append(("wrap", [("kernels: " + ", ".join(f"{n} {k}" for k, n in sorted(s.kernels_by_kind.items())), "")]))
    if s.runtime is not None and s.kernels_by_kind:
        from tdiag.reports.view import top_modules_line

        top = top_modules_line(analysis)
        if top:
            lines.append(("wrap", [(top, "")]))
    # Problems first; informational findings are counted here and listed by lint, the TUI and the HTML report.
    shown = [f for f in analysis.findings if f.severity != "info"][:MAX_ROWS]
    if shown:
        # fitted: a word longer than a line is never cut
        lines += [("fitted", line) for line in findings_lines(shown, width, with_cost=s.runtime is not None)]
        # what a ≥ figure leaves out (the other caveats are in the TUI, HTML and JSON detail)
        lines += [("wrap", [(note, "dim")]) for note in lower_bound_notes([f.cost for f in shown])]
    hidden = len(analysis.findings) - len(shown)
    if hidden:
        lines.append(("wrap", [(f"... and {hidden} more finding(s), informational or beyond the top {MAX_ROWS}", "dim")]))
    if not analysis.findings and not capture_health.is_incomplete(analysis.run):  # an incomplete one was said above
        tone, verdict = capture_health.empty_verdict(analysis)
        lines.append(("wrap", [(verdict, "green" if tone == "clear" else "bold red" if tone == "stopped" else "yellow")]))
    lines += [("wrap", [(f"note: {note}", "dim")]) for note in analysis.run.notes]
    if run_dir is not None:
        lines.append(("wrap", [(f"record: {run_dir}", "")]))
        lines.append(("wrap", [("open it: ", ""), (f"tdiag tui {run_dir}", "bold"), (" | ", ""),
                               (f"tdiag report {run_dir} -o report.html", "bold"), (" | ", ""),
                               (f"tdiag lint {run_dir}", "bold")]))
    return lines


def findings_lines(findings: list[Finding], width: int, with_cost: bool = False) -> list[Segments]:
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


def plain_lines(lines: list[Line], width: int) -> list[str]:
    """The summary as a CI log shows it: no styling, rules drawn with box characters, prose wrapped between words."""
    out: list[str] = []
    for kind, segments in lines:
        text = "".join(t for t, _ in segments)
        if kind == "rule":
            title = f" {text} "
            left = max(width - len(title), 0) // 2
            out.append("─" * left + title + "─" * max(width - len(title) - left, 0))
        elif kind == "wrap":
            out += textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]
        else:
            out.append(text)
    return out


def _write_rich(console, lines: list[Line]) -> None:
    from rich.text import Text

    for kind, segments in lines:
        text = Text.assemble(*segments)
        if kind == "rule":
            console.rule(text, style="dim")
        else:
            console.print(text, soft_wrap=kind == "fitted")


def _styled(file: TextIO) -> bool:
    """Whether rich would style this stream: a terminal, or colour forced (FORCE_COLOR, TTY_COMPATIBLE=1)."""
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    try:
        return file.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: plain text is always safe
        return False


def _env_columns() -> int | None:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return columns if columns > 0 else None


def _cells(f: Finding, with_cost: bool) -> list[str]:
    site = f"{f.path}:{f.line}" + (f":{f.column}" if f.column else "")
    return [site, f.code, str(f.occurrences)] + ([cost_label(f.cost)] if with_cost else [])


def _table_lines(findings, rows, headers, widths, message_width) -> list[Segments]:
    lines: list[Segments] = [[(_join([h.ljust(w) for h, w in zip(headers, widths)]) + GAP + "what happened / fix", "bold")]]
    indent = " " * (sum(widths) + len(GAP) * len(widths))
    for f, row in zip(findings, rows):
        what = _wrapped(f, message_width)
        lines.append(_row(f, row, widths) + [(GAP, "")] + what[0])
        lines += [[(indent, "")] + rest for rest in what[1:]]
    return lines


def _stacked_lines(findings, rows, widths, width) -> list[Segments]:
    lines: list[Segments] = []
    for f, row in zip(findings, rows):
        lines.append(_row(f, row, widths))
        lines += [[(MESSAGE_INDENT, "")] + line for line in _wrapped(f, width - len(MESSAGE_INDENT))]
    return lines


def _row(f: Finding, row: list[str], widths: list[int]) -> Segments:
    """Site, code, count[, cost]: the site shortened to its column, numbers right-aligned."""
    site, code, *numbers = row
    segments = [(shorten_site(site, widths[0]).ljust(widths[0]) + GAP, ""),
                (code.ljust(widths[1]), SEVERITY_STYLE.get(f.severity, ""))]
    return segments + [(GAP + value.rjust(w), "") for value, w in zip(numbers, widths[2:])]


def _wrapped(f: Finding, width: int) -> list[Segments]:
    """Message, then ``fix: ...`` dimmed, each wrapped between words (a word wider than the line keeps its line)."""
    wrap = textwrap.TextWrapper(width=max(width, 1), break_long_words=False, break_on_hyphens=False)
    lines = [[(line, "")] for line in wrap.wrap(f.message) or [""]]
    return lines + [[(line, "dim")] for line in wrap.wrap(fix_label("fix", f) + ": " + f.fix)]


def _join(cells: list[str]) -> str:
    return GAP.join(cells)
