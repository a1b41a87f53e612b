"""``tdiag import``: the command line of the TORCH_TRACE import (``tdiag.tracer.trace_import`` writes the record).

A directory holding logs of more than one run is refused with exit 2 (a usage error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tdiag.errors import TdiagError
from tdiag.rundir import choose_run_dir
from tdiag.tracer.trace_import import import_logs, plan_import


class ImportCommand:
    name = "import"
    help = "Import torch structured-trace logs (TORCH_TRACE files, as tlparse reads) as a tdiag record."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("trace", metavar="PATH", help="a TORCH_TRACE directory (one log per rank) or one log file")
        parser.add_argument("-o", "--output", metavar="DIR", help="run directory for the record (default: ./tdiag-runs/import-<time>)")
        parser.add_argument("--source-root", metavar="DIR", help="snapshot the user sources the logs name, from files under DIR only")
        parser.add_argument("-q", "--quiet", action="store_true", help="no summary (the record is still written)")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        source_root = _source_root(args.source_root)
        plan = plan_import(args.trace)
        run_dir = choose_run_dir(args.output, "import-" + _label(args.trace))
        result = import_logs(plan, run_dir, source_root)
        print(f"tdiag: imported {result.events} events from {len(plan.logs)} log(s) into {run_dir}", file=sys.stderr)
        if result.incomplete:
            ranks = [r for r in result.incomplete if r is not None]
            who = f"ranks {', '.join(map(str, ranks))}" if ranks else "the log"
            print(f"tdiag: {who} cut short: shown as incomplete, analysed as far as they go", file=sys.stderr)
        for note in plan.notes:
            print(f"tdiag: note: {note}", file=sys.stderr)
        if not args.quiet:
            from tdiag.analyzer import build
            from tdiag.reports.registry import ReportOptions, get_reporter

            get_reporter("console").render(build(run_dir), sys.stderr, ReportOptions(run_dir=run_dir))
        return 0


def _source_root(value: str | None) -> Path | None:
    if value is None:
        return None
    root = Path(value).resolve()
    if not root.is_dir():
        raise TdiagError(f"--source-root {value} is not a directory")
    return root


def _label(trace: str) -> str:
    name = Path(trace).resolve().name
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:40] or "trace"


COMMAND = ImportCommand()
