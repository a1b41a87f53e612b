"""``tdiag diff BASE NEW``: what changed between two records, e.g. a stored baseline and this CI run.

Exit status: 1 when NEW regressed (a new finding at or above ``--fail-on``, or more graphs, graph breaks or
recompilations than BASE), 0 otherwise, 2 for a usage error, an unreadable record, or a record whose capture or
analysis was incomplete or that cannot support an all-clear (a finding absent from it is "unknown", never "fixed").
"""

from __future__ import annotations

import argparse
import sys

from tdiag.analyzer.model import SEVERITIES
from tdiag.commands._analysis import load_analysis
from tdiag.errors import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE

FORMATS = ("text", "json")


class DiffCommand:
    name = "diff"
    help = "Compare two records: findings fixed, new and unchanged, and how counts moved (exit 1 on regressions)."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("base", metavar="BASE", help="the baseline record (run directory or events*.jsonl)")
        parser.add_argument("new", metavar="NEW", help="the record to compare with it")
        parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: %(default)s)")
        parser.add_argument(
            "--fail-on", choices=SEVERITIES, default="warning", help="a new finding this severe or worse is a regression (default: %(default)s)"
        )

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.analyzer.diff import diff
        from tdiag.reports.registry import ReportOptions, get_reporter, write_report

        base, new = load_analysis(args.base), load_analysis(args.new)
        result = diff(base, new)
        options = ReportOptions(base=args.base, new=args.new, fail_on=args.fail_on)
        write_report(get_reporter(f"diff-{args.format}"), result, None, options)
        if _report_incomplete(("base", base), ("new", new)):
            return EXIT_USAGE  # "no regressions" over a capture that missed events would be a silent all-clear
        return EXIT_FINDINGS if result.regressions(args.fail_on) else EXIT_CLEAN


def _report_incomplete(*named) -> bool:
    from tdiag.analyzer.capture_health import incomplete_lines

    incomplete = False
    for label, analysis in named:
        for line in incomplete_lines(analysis.run):
            print(f"tdiag diff: error: {label}: {line}", file=sys.stderr)
            incomplete = True
    return incomplete


COMMAND = DiffCommand()
