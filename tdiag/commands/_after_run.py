"""What ``tdiag run`` shows once the program is done (summary, optional HTML, TUI), single- or multi-rank alike.

Shared by ``run`` and its torchrun launcher, so neither imports the other.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tdiag.gc_pause import collection_paused


def show_results(args, run_dir: Path, lead: bool) -> None:
    """Summary, optional HTML and TUI; a failure here must not change the program's exit status.

    ``lead`` is False for ranks other than 0 under torchrun: only one process reports, over every rank's file.
    """
    from tdiag.interrupt import phase

    summary = not args.quiet and lead
    tui = lead and wants_tui(args) and is_tty(sys.stdout) and is_tty(sys.stdin)
    if not (summary or args.html or tui):
        return
    kept = f"the record is kept in {run_dir}"
    with phase("analysing the record", kept=kept):
        analysis = _summary(args, run_dir, summary, suggestions=bool(args.html or tui))
    if analysis is None:
        return
    if args.html:
        with phase("writing the HTML report", kept=kept):
            _html(analysis, args.html, run_dir)
    if tui:
        try:
            from tdiag.tui import run_app
        except ImportError:
            return
        with phase("exploring the record", kept=kept):
            run_app(analysis, run_dir)


def wants_tui(args) -> bool:
    """The UI opens on request (``--tui``), after the summary, as memray and pyinstrument leave theirs to a command."""
    return bool(getattr(args, "tui", False))


def _summary(args, run_dir: Path, summary: bool, suggestions: bool):
    """The Analysis, with the console summary printed; None when the record could not be analysed (said why)."""
    # The finished program's heap (torch, Dynamo's caches) is large and, under python, sees no collection before
    # shutdown: the analysis must not pay full passes over it (~0.1 s each) nor run the program's finalizers early.
    # Not around the HTML report or the TUI, which may allocate much or stay open for long.
    with collection_paused():
        try:
            from tdiag.analyzer import build

            with _analysing(run_dir):
                # the summary alone needs no patches (libcst), only the fixes suggestions word (analyzer/finish.py)
                analysis = build(run_dir, suggestions=suggestions)
        except Exception as exc:
            print(f"tdiag: the record in {run_dir} could not be analysed: {exc}", file=sys.stderr)
            return None
        from tdiag.reports.registry import ReportOptions, get_reporter

        if summary:
            get_reporter("console").render(analysis, sys.stderr, ReportOptions(run_dir=run_dir))
            from tdiag.commands._cache_baseline import explain_against_baseline

            explain_against_baseline(args, run_dir, analysis)  # why a cache missed, against the previous record
    return analysis


def _analysing(run_dir: Path):
    """A spinner on a terminal while several ranks' records are read (seconds to minutes for a big job)."""
    from contextlib import nullcontext

    ranks = sum(1 for _ in run_dir.glob("events*.jsonl"))
    if ranks < 2 or not is_tty(sys.stderr):  # one record is analysed in about a second: no spinner to flash
        return nullcontext()
    from tdiag.reports.progress import progress

    return progress(f"tdiag: analysing the records of {ranks} ranks")


def _html(analysis, path: str, run_dir: Path) -> None:
    from tdiag.reports.progress import progress
    from tdiag.reports.registry import ReportOptions, get_reporter, write_report

    try:
        with progress(f"tdiag: writing the HTML report {path}"):
            write_report(get_reporter("html"), analysis, path, ReportOptions(record=str(run_dir)))
        print(f"tdiag: HTML report written to {path}", file=sys.stderr)
    except Exception as exc:
        print(f"tdiag: could not write the HTML report: {exc}", file=sys.stderr)


def is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except Exception:
        return False
