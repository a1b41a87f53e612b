"""``tdiag report``: render a record's Analysis as JSON (the interface other tools read) or HTML."""

from __future__ import annotations

import argparse
import sys

from tdiag.commands._analysis import load_analysis
from tdiag.errors import TdiagError

FORMATS = ("json", "html")


class ReportCommand:
    name = "report"
    help = "Write a record's analysis as JSON (documented, versioned) or as a single-file HTML report."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("record", help="a run directory or an events*.jsonl file")
        parser.add_argument("-f", "--format", choices=FORMATS, help="output format (default: from -o's extension, else json)")
        parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
        parser.add_argument("--no-code", action="store_true", help="JSON: leave out generated code and graph text")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.reports.registry import ReportOptions, get_reporter, write_report

        fmt = args.format or guess_format(args.output)
        if fmt == "html" and not args.output:
            raise TdiagError("the HTML report needs -o FILE")
        analysis = load_analysis(args.record)
        write_report(get_reporter(fmt), analysis, args.output, ReportOptions(record=args.record, include_code=not args.no_code))
        if fmt == "html":
            print(f"tdiag: HTML report written to {args.output}", file=sys.stderr)
        return 0


def guess_format(output: str | None) -> str:
    from tdiag.reports.registry import guess_format as by_extension

    return by_extension(output, FORMATS, default="json")


COMMAND = ReportCommand()
