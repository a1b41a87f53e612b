"""``tdiag lint``: a record's findings in ruff's output formats, with ruff's exit codes, for CI.

Exit status: 0 when no selected finding is at or above ``--fail-on`` (default ``warning``, so ``info`` findings
such as DYN001 never fail a build unless asked), 1 when one is, 2 for a usage error, a record that cannot be
read, an incomplete capture or analysis (a stage, rule or suggester of tdiag's that raised), or a record that cannot
support an all-clear (interrupted, cut short, unreadable lines, a program that exited before compiling): each named on
stderr (analyzer/capture_health.py). ``--exit-zero`` turns 1 into 0 and leaves 2 alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from tdiag.analyzer.model import SEVERITIES, SEVERITY_RANK
from tdiag.commands._analysis import load_analysis
from tdiag.errors import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE

DEFAULT_FAIL_ON = "warning"


class LintCommand:
    name = "lint"
    help = "Report a record's findings in lint formats (full, concise, json, json-lines, sarif, github, junit)."

    def prepare_parser(self, parser: argparse.ArgumentParser) -> None:
        from tdiag.reports.lint import DEFAULT_FORMAT, FORMATS

        parser.add_argument("record", metavar="RECORD", help="a run directory or an events*.jsonl file")
        parser.add_argument("--format", choices=list(FORMATS), default=DEFAULT_FORMAT, help="output format (default: %(default)s)")
        parser.add_argument("--select", action="append", metavar="CODES", help="only these codes or prefixes, comma-separated (BRK, RCP001, ALL)")
        parser.add_argument("--ignore", action="append", metavar="CODES", help="leave out these codes or prefixes, comma-separated")
        parser.add_argument(
            "--fail-on", choices=SEVERITIES, default=DEFAULT_FAIL_ON, help="exit 1 when a finding is at least this severe (default: %(default)s)"
        )
        parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings are reported")
        parser.add_argument("--statistics", action="store_true", help="count findings per code instead of listing them (--format statistics; JSON with a JSON --format)")
        parser.add_argument("--output-file", metavar="FILE", help="write the report here instead of stdout")
        parser.add_argument(
            "--show-library-sites", action="store_true",
            help="report findings at the library location torch saw (site-packages, generated code) instead of the user line that reached it",
        )

    def run(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        selection = _selection(args)
        analysis = load_analysis(args.record)
        selected = dataclasses.replace(analysis, findings=[f for f in analysis.findings if selection.includes(f.code)])
        if args.show_library_sites:
            from tdiag.analyzer.library_sites import at_library_sites

            selected = dataclasses.replace(selected, findings=at_library_sites(selected.findings))
        _write_report(selected, args)
        _append_step_summary(selected)
        if analysis.run.torch_notice and args.format not in ("full", "concise"):  # those print it in their footer
            print(f"tdiag lint: note: {analysis.run.torch_notice}", file=sys.stderr)
        from tdiag.analyzer.capture_health import incomplete_lines

        incomplete = incomplete_lines(analysis.run)
        if incomplete:
            # Like a linter that could not read a file: an error (2), even with --exit-zero, never a pass: the capture
            # missed something, or a rule of tdiag's failed (its findings are missing).
            for line in incomplete:
                print(f"tdiag lint: error: {line}", file=sys.stderr)
            return EXIT_USAGE
        if args.exit_zero:
            return EXIT_CLEAN
        threshold = SEVERITY_RANK[args.fail_on]
        failing = any(SEVERITY_RANK.get(f.severity, len(SEVERITIES)) <= threshold for f in selected.findings)
        failing = failing or analysis.summary.crash is not None  # torch.compile stopped the program: never a pass
        return EXIT_FINDINGS if failing else EXIT_CLEAN


def _selection(args: argparse.Namespace):
    from tdiag.commands._selection import code_selection

    return code_selection(args.select, args.ignore)


def _write_report(analysis, args: argparse.Namespace) -> None:
    from tdiag.reports.registry import ReportOptions, get_reporter, write_report

    fmt = args.format
    if args.statistics:  # ruff's flag: the counts, as JSON when a JSON format was asked for
        fmt = "statistics-json" if fmt.startswith("json") else "statistics"
    write_report(get_reporter(f"lint-{fmt}"), analysis, args.output_file, ReportOptions(record=args.record))


def _append_step_summary(analysis) -> None:
    """Inside GitHub Actions, leave a Markdown summary on the job page (best effort: never fails the lint)."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    from tdiag.reports.lint.step_summary import fit_to_budget, markdown_summary

    try:
        used = os.path.getsize(target) if os.path.exists(target) else 0
        text = fit_to_budget(markdown_summary(analysis), used)
        if text:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(text)
    except OSError as exc:
        print(f"tdiag lint: could not write the job summary {target}: {exc.strerror or exc}", file=sys.stderr)


COMMAND = LintCommand()
