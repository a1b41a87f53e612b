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
    summary = not args.quiet and lead
    tui = lead and not args.no_tui and is_tty(sys.stdout) and is_tty(sys.stdin)
    if not (summary or args.html or tui):
        return
    # The finished program's heap (torch, Dynamo's caches) is large and, under python, sees no collection before
    # shutdown: the analysis must not pay full passes over it (~0.1 s each) nor run the program's finalizers early.
    # Not around the HTML report or the TUI, which may allocate much or stay open for long.
    with collection_paused():
        try:
            from tdiag.analyzer import build

            # the summary alone needs no patches (libcst), only the fixes suggestions word (analyzer/finish.py)
            analysis = build(run_dir, suggestions=bool(args.html or tui))
        except Exception as exc:
            print(f"tdiag: the record in {run_dir} could not be analysed: {exc}", file=sys.stderr)
            return
        from tdiag.reports.registry import ReportOptions, get_reporter, write_report

        if summary:
            get_reporter("console").render(analysis, sys.stderr, ReportOptions(run_dir=run_dir))
    if args.html:
        try:
            write_report(get_reporter("html"), analysis, args.html, ReportOptions(record=str(run_dir)))
            print(f"tdiag: HTML report written to {args.html}", file=sys.stderr)
        except Exception as exc:
            print(f"tdiag: could not write the HTML report: {exc}", file=sys.stderr)
    if tui:
        try:
            from tdiag.tui import run_app
        except ImportError:
            return
        run_app(analysis, run_dir)


def is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except Exception:
        return False
