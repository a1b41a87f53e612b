"""``tdiag report``: render a record's Analysis as JSON (the interface other tools read) or HTML."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tdiag.commands._analysis import load_analysis
from tdiag.errors import TdiagError

FORMATS = ("json", "html")


class ReportCommand:
    name = "report"
    help = "Write a record's analysis as JSON (documented, versioned) or as a single-file HTML report."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("record", metavar="RECORD", help="a run directory or an events*.jsonl file")
        parser.add_argument("-f", "--format", choices=FORMATS,
                            help="output format (default: from -o's extension; without -o, html in a terminal and "
                            "json when stdout is piped)")
        parser.add_argument("-o", "--output", metavar="FILE",
                            help="write here (default: JSON to stdout when piped; in a terminal, report.html beside "
                            "the record)")
        parser.add_argument("--no-code", action="store_true", help="JSON: leave out generated code and graph text")

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        from tdiag.interrupt import phase
        from tdiag.reports.progress import progress
        from tdiag.reports.registry import ReportOptions, get_reporter, write_report

        output = args.output
        if output is None and args.format != "json" and sys.stdout.isatty():
            # 190 KB of JSON is no use in a terminal: the page a person reads, beside the record (memray's habit)
            output = str(_record_dir(args.record) / "report.html")
        fmt = args.format or guess_format(output)
        if fmt == "html" and not output:
            raise TdiagError("the HTML report needs -o FILE")

        with phase("reading the record", kept="nothing was written"), progress("tdiag: analysing the record"):
            analysis = load_analysis(args.record)
        kept = "the record is unchanged" + (f"; {output} was not written" if output else "")
        with phase(f"writing the {fmt.upper()} report", kept=kept), progress(f"tdiag: writing {output}",
                                                                                  enabled=output is not None):
            write_report(get_reporter(fmt), analysis, output, ReportOptions(record=args.record,
                                                                            include_code=not args.no_code))
        if fmt == "html":
            print(f"tdiag: HTML report written to {output}", file=sys.stderr)
        return 0


def _record_dir(record: str) -> Path:
    path = Path(record)
    return path if path.is_dir() else path.parent


def guess_format(output: str | None) -> str:
    from tdiag.reports.registry import guess_format as by_extension

    return by_extension(output, FORMATS, default="json")


COMMAND = ReportCommand()
