"""``tdiag fix`` on the terminal: each patch as a coloured unified diff, then the before/after table and verdict."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tdiag.fixing.compare import Comparison
from tdiag.fixing.loop import FixReport

ROWS = (
    ("graphs", "graphs", "{}"),
    ("graph breaks", "graph_breaks", "{}"),
    ("recompiles", "recompiles", "{}"),
    ("eager fallbacks", "eager_fallbacks", "{}"),
    ("compile time", "compile_time_s", "{:.2f} s"),
    ("time per step (measured)", "step_time_s", "{:.3f} ms"),
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
    for c in report.comparisons:
        _print_comparison(console, c)
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


def _print_comparison(console: Console, c: Comparison) -> None:
    table = Table(title=f"round {c.round}: {c.label}", title_justify="left", show_edge=False)
    table.add_column("")
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    for label, attr, fmt in ROWS:
        b, a = getattr(c.before, attr), getattr(c.after, attr)
        if (b is None and a is None) or (attr == "steps_measured" and not (b or a)):
            continue
        scale = 1e3 if attr == "step_time_s" else 1
        cells = ["–" if v is None else fmt.format(v * scale) for v in (b, a)]
        table.add_row(label, cells[0], Text(cells[1], style=_style(attr, b, a)))
    if c.before.runs > 1 or c.after.runs > 1:
        table.add_row("runs (measured)", *(f"{m.runs} ({len(m.step_times_s)})" for m in (c.before, c.after)))
    if c.output_within_tolerance:
        same = Text(f"within tolerance (rel {c.output_tolerance:g}, last digit ±1)", style="yellow")
    else:
        same = Text("yes" if c.stdout_identical else "NO", style="green" if c.stdout_identical else "bold red")
    table.add_row("stdout identical", "", same)
    console.print(table)
    if c.output_number_differences:
        console.print("  numbers that differ: " + ", ".join(c.output_number_differences), style="yellow")
    if c.timing:
        console.print(f"step time: {c.timing}", style="dim")
    if c.gone:
        console.print(f"findings gone: {', '.join(c.gone)}", style="green")
    if c.new:
        console.print(f"new findings: {', '.join(c.new)}", style="yellow")
    for line in c.stdout_diff:
        console.print(f"  {line}", style="red")
    if c.ok and c.completed:
        console.print("verdict: fixed: the program stopped before and runs to its end now", style="bold green")
    elif c.pays:
        console.print("verdict: better: " + "; ".join(c.improved), style="bold green")
    elif c.ok:
        console.print("verdict: no regression, but nothing measurably better", style="yellow")
    else:
        console.print("verdict: WORSE: " + "; ".join(c.problems), style="bold red")
    if c.kept is not None:
        console.print("kept" if c.kept else "dropped", style="green" if c.kept else "yellow")


def _print_rounds(console: Console, report: FixReport) -> None:
    kept = report.kept or []
    console.print(f"rounds: {report.rounds}, stopped: {report.stopped}", style="bold")
    if kept:
        console.print(f"final set ({len(kept)} patch(es), what --apply writes): {', '.join(p.id for p in kept)}")
    else:
        console.print("final set: empty (no patch verified and paid)", style="yellow")


def _print_eager(console: Console, eager) -> None:
    def ms(times: list[float]) -> str:
        return f"{min(times) * 1e3:.3f}-{max(times) * 1e3:.3f} ms/step over {len(times)} run(s)" if times else "not measured"

    style = {"compiled slower than eager": "bold red", "compiled faster than eager": "bold green"}.get(eager.verdict, "yellow")
    console.print(f"eager (TORCH_COMPILE_DISABLE=1): {ms(eager.step_times_s)}; compiled: {ms(eager.compiled_step_times_s)}")
    console.print(f"{eager.verdict}: {eager.detail}", style=style)
    if eager.cause:
        console.print(f"cause: {eager.cause}")


def _style(attr: str, before, after) -> str:
    if before is None or after is None or attr in ("run_time_s", "exit_code"):
        return ""
    return "green" if after < before else "red" if after > before else ""


__all__ = ["print_report"]
