"""``tdiag tui RECORD``: open a saved record in the interactive terminal UI."""

from __future__ import annotations

import argparse
from pathlib import Path

from tdiag.errors import EXIT_CLEAN


class TuiCommand:
    name = "tui"
    help = "Explore a record interactively: findings, recompilations, graphs and kernels, annotated source."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("record", metavar="RECORD", help="a run directory or an events*.jsonl file")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.commands._analysis import load_analysis
        from tdiag.interrupt import phase
        from tdiag.tui import run_app

        record_dir = Path(args.record) if Path(args.record).is_dir() else Path(args.record).parent
        with phase("reading the record", kept="nothing was changed"):
            analysis = load_analysis(args.record)  # a bad record is a one-line error and exit 2
        with phase("exploring the record", kept="the record is unchanged (a patch applied with `a` keeps its undo)"):
            run_app(analysis, record_dir)
        return EXIT_CLEAN


COMMAND = TuiCommand()
