"""``tdiag fix`` on the terminal: each patch as a coloured unified diff, then each round: its verdict first, the
before/after table under it, and what the round kept or refused and why.

Step times are shown with their spread over the ``--repeat`` runs ("1.46 ± 1.2 ms": the middle of the range and half
its width, so the text spans every run) and are coloured only where analyzer/verdict.py judged them faster or slower:
a difference inside the spread is never styled as a change. Compile time and wall time are never judged, never
coloured (except a cache fix's warm-run compile time, judged in cache_verify.py); counts are exact and coloured
whenever they move.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tdiag.analyzer.verdict import JUDGED_COUNTS
from tdiag.fixing.compare import Comparison, Metrics
from tdiag.fixing.report import FixReport
from tdiag.fixing.round import Round

ROWS = (
    ("graphs", "graphs", "{}"),
    ("graph breaks", "graph_breaks", "{}"),
    ("recompiles", "recompiles", "{}"),
    ("eager fallbacks", "eager_fallbacks", "{}"),
    ("compile time", "compile_time_s", "{:.2f} s"),
    ("time per step (measured)", "step_time_s", ""),
    ("steps measured", "steps_measured", "{}"),
    ("program wall time", "run_time_s", "{:.2f} s"),
    ("exit code", "exit_code", "{}"),
)


def print_report(report: FixReport, file: TextIO, show_diffs: bool = True) -> None:
    console = Console(file=file, highlight=False, soft_wrap=True)
    if not report.patches:
        console.print("tdiag fix: no finding in this record has a patch (see `tdiag lint` for the text fixes)")
        if report.eager is not None:
            _print_eager(console, report.eager)
        return
    for p in report.patches:
        header = Text()
        header.append(f"{p.id}", style="bold")
        header.append(f"  {p.title}")
        if p.held_back:
            header.append(f"  (held back: {p.held_back})", style="yellow")
        console.print(header)
        if show_diffs:
            console.print(Syntax(p.patch.rstrip("\n"), "diff", theme="ansi_dark", background_color="default"))
    for note in report.notes:
        console.print(f"note: {note}", style="yellow")
    if report.output is not None:
        _print_output_baseline(console, report.output)
    for r in report.rounds:
        _print_round(console, r)
    if report.kept is not None:
        _print_rounds(console, report)
    if report.eager is not None:
        _print_eager(console, report.eager)
    if report.scratch is not None:
        console.print(f"scratch copies kept in {report.scratch}")
    for r in report.refusals:
        console.print(f"refused {r.path}: {r.detail}", style="bold red")
    if report.not_applied:
        console.print(report.not_applied, style="bold red" if report.refusals or report.worse else "yellow")
    if report.applied is not None:
        count = len(report.kept) if report.kept else len(report.chosen)
        console.print(f"applied {count} patch(es) to {', '.join(report.applied.files)}", style="bold green")
        console.print(f"backup: {report.applied.backup}")
        console.print(f"undo:   tdiag fix {report.record} --undo")
    elif not report.comparisons and not report.refusals and report.chosen:
        console.print(
            f"{len(report.chosen)} patch(es) apply together; --verify measures them on a scratch copy, --apply writes them",
            style="dim",
        )


def _print_round(console: Console, r: Round) -> None:
    for c in r.attempts:
        _print_comparison(console, c)
    if r.kept:
        console.print(f"round {r.number} keeps {', '.join(p.id for p in r.kept)}: {r.why}", style="green")
    else:
        console.print(f"round {r.number} {r.why}", style="yellow")


def _print_comparison(console: Console, c: Comparison) -> None:
    verdict, style = _verdict(c)
    title = Text(f"round {c.round}: {c.label}: ", style="bold")
    title.append(verdict, style=style)
    if c.kept is not None:
        title.append("  (kept)" if c.kept else "  (dropped)", style="green" if c.kept else "yellow")
    console.print(title)
    table = Table(show_edge=False)
    table.add_column("")
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    for label, attr, fmt in ROWS:
        b, a = getattr(c.before, attr), getattr(c.after, attr)
        if (b is None and a is None) or (attr == "steps_measured" and not (b or a)):
            continue
        if attr == "step_time_s":
            cells = [step_time(c.before), step_time(c.after)]
        else:
            cells = ["–" if v is None else fmt.format(v) for v in (b, a)]
        if c.cache is not None and attr == "compile_time_s":
            label = "compile time (warm run)"  # a cache fix is measured on the run after the cache was filled
        table.add_row(label, cells[0], Text(cells[1], style=_style(attr, c)))
    if c.before.runs > 1 or c.after.runs > 1:
        table.add_row("runs (measured)", *(f"{m.runs} ({len(m.step_times_s)})" for m in (c.before, c.after)))
    if c.output_within_tolerance and c.output_judged:
        same = Text("within the program's own run-to-run spread", style="yellow")
    elif c.output_within_tolerance:
        same = Text(f"within tolerance (rel {c.output_tolerance:g}, last digit ±1)", style="yellow")
    else:
        same = Text("yes" if c.stdout_identical else "NO", style="green" if c.stdout_identical else "bold red")
    table.add_row("stdout identical", "", same)
    console.print(table)
    if c.output_number_differences:
        console.print("  numbers that differ: " + ", ".join(c.output_number_differences), style="yellow")
    if c.cache is not None:
        w = c.cache
        console.print(f"{w.line()}; FX graph cache hits on the warm run: {w.before.fx_hits} before, "
                      f"{w.after.fx_hits} after; first (populating) run: {w.before.populate_compile_s:.1f}s before, "
                      f"{w.after.populate_compile_s:.1f}s after")
        console.print(f"cache: {w.judged}", style="dim")
    if c.timing:
        again = f" (a close call: {c.remeasured} more run(s) a side, taken in turn)" if c.remeasured else ""
        console.print(f"step time: {c.timing}{again}", style="dim")
    if c.gone:
        console.print(f"findings gone: {', '.join(c.gone)}", style="green")
    if c.new:
        console.print(f"new findings: {', '.join(c.new)}", style="yellow")
    for line in c.stdout_diff:
        console.print(f"  {line}", style="red")


def _verdict(c: Comparison) -> tuple[str, str]:
    if c.ok and c.completed:
        return "fixed: the program stopped before and runs to its end now", "bold green"
    if c.pays:
        return "better: " + "; ".join(c.improved), "bold green"
    if c.ok:
        cache = f" ({c.cache.line()})" if c.cache is not None else ""
        return f"no regression, but nothing measurably better{cache}", "yellow"
    return "WORSE: " + "; ".join(c.problems), "bold red"


def step_time(m: Metrics) -> str:
    """The measured step: "1.46 ± 1.2 ms" over several runs (middle of the range ± half its width), else one run's."""
    if len(m.step_times_s) > 1:
        lo, hi = min(m.step_times_s) * 1e3, max(m.step_times_s) * 1e3
        return f"{_ms((lo + hi) / 2)} ± {_ms((hi - lo) / 2, digits=2)} ms"
    return "–" if m.step_time_s is None else f"{_ms(m.step_time_s * 1e3)} ms"


def _ms(value: float, digits: int = 3) -> str:
    """``digits`` significant digits, never scientific notation: 0.406, 1.46, 12.3, 1234."""
    if value == 0:
        return "0"
    from math import floor, log10

    decimals = max(digits - 1 - floor(log10(abs(value))), 0)
    return f"{value:.{decimals}f}"


def _print_rounds(console: Console, report: FixReport) -> None:
    kept = report.kept or []
    console.print(f"rounds: {len(report.rounds)}, stopped: {report.verification.stopped}", style="bold")
    if kept:
        console.print(f"final set ({len(kept)} patch(es), what --apply writes): {', '.join(p.id for p in kept)}")
    else:
        console.print("final set: empty (no patch verified and paid)", style="yellow")


def _print_output_baseline(console: Console, output) -> None:
    """How outputs are judged (what varied by itself) and whether compiled results equal eager's."""
    console.print(f"output: {output.words}", style="dim")
    parity = output.parity
    if parity.differs:
        console.print(f"error: compiled results differ from eager (TORCH_COMPILE_DISABLE=1): "
                      f"{parity.first_difference or parity.detail}", style="bold red")
        console.print(f"  {parity.detail}", style="red")
    else:
        console.print(f"eager parity: {parity.verdict}: {parity.detail}", style="dim")


def _print_eager(console: Console, eager) -> None:
    def ms(times: list[float]) -> str:
        return f"{min(times) * 1e3:.3f}-{max(times) * 1e3:.3f} ms/step over {len(times)} run(s)" if times else "not measured"

    style = {"compiled slower than eager": "bold red", "compiled faster than eager": "bold green"}.get(eager.verdict, "yellow")
    console.print(f"eager (TORCH_COMPILE_DISABLE=1): {ms(eager.step_times_s)}; compiled: {ms(eager.compiled_step_times_s)}")
    console.print(f"{eager.verdict}: {eager.detail}", style=style)
    if eager.cause:
        console.print(f"cause: {eager.cause}")


def _style(attr: str, c: Comparison) -> str:
    """A change is coloured only where it was judged: counts always (exact), the step time beyond the spread."""
    before, after = getattr(c.before, attr), getattr(c.after, attr)
    if attr == "step_time_s":
        return "green" if c.timing.startswith("faster") else "red" if c.timing.startswith("slower") else ""
    if attr == "compile_time_s" and c.cache is not None:  # judged for a cache fix: its warm runs (cache_verify)
        return "green" if c.cache.pays else ""
    if attr == "exit_code":
        return "" if before == after else "green" if c.completed else "red"
    if attr not in JUDGED_COUNTS or before is None or after is None:
        return ""
    return "green" if after < before else "red" if after > before else ""


__all__ = ["print_report", "step_time"]
