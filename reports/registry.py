"""One Reporter protocol and one registry for every output: console summary, JSON, HTML, each lint format, diff.

A command parses its arguments, loads the Analysis through ``tdiag/commands/_analysis.py`` and hands it to a
reporter found here by name; writing to stdout or a file, and failing clearly (exit 2) when the file cannot be
written, happens once in ``write_report``. Renderers are imported when first used, so that picking one stays cheap.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TextIO, TypeVar

from tdiag.errors import TdiagError
from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.analyzer.diff import AnalysisDiff as DiffResult
    from tdiag.analyzer.model import Analysis

    from tdiag.fixing.report import FixReport


@lean_dataclass(frozen=True)
class ReportOptions:
    """What a reporter may be told besides its subject; each reporter reads the fields it needs."""

    record: str | None = None  # how the user named the record (lint footers' "tdiag tui RECORD" hint)
    run_dir: Path | None = None  # console summary: the record's "open it" lines
    include_code: bool = True  # JSON: generated code and graph text
    base: str = ""  # diff: how the two records were named
    new: str = ""
    fail_on: str = "warning"  # diff: the severity that makes a new finding a regression
    show_diffs: bool = True  # fix: each patch's diff under it


Subject = TypeVar("Subject", contravariant=True)  # what a reporter renders: an Analysis, or a DiffResult


class Reporter(Protocol[Subject]):
    name: str
    extensions: tuple[str, ...]  # file extensions it is guessed from, with their dot; the first is the usual one
    is_human_readable: bool

    def render(self, subject: Subject, out: TextIO, options: ReportOptions) -> None:
        """Write ``subject`` to ``out``."""


@lean_dataclass(frozen=True)
class TextReporter(Generic[Subject]):
    """A reporter made of a function that returns the whole text."""

    name: str
    extensions: tuple[str, ...]
    is_human_readable: bool
    to_text: Callable[[Subject, ReportOptions], str]

    def render(self, subject: Subject, out: TextIO, options: ReportOptions) -> None:
        out.write(self.to_text(subject, options))


@lean_dataclass(frozen=True)
class ConsoleReporter:
    """The end-of-run summary (reports/console.py) as a reporter."""

    name: str = "console"
    extensions: tuple[str, ...] = (".txt",)
    is_human_readable: bool = True

    def render(self, subject: Analysis, out: TextIO, options: ReportOptions) -> None:
        from tdiag.reports.console import print_summary

        print_summary(subject, options.run_dir, file=out)


def _json(analysis: Analysis, options: ReportOptions) -> str:
    return json.dumps(analysis.to_dict(include_code=options.include_code), indent=2, default=str) + "\n"


def _html(analysis: Analysis, options: ReportOptions) -> str:
    from tdiag.reports.html import render_html

    return render_html(analysis)


def _lint(fmt: str) -> Callable[[Analysis, ReportOptions], str]:
    def to_text(analysis: Analysis, options: ReportOptions) -> str:
        from tdiag.reports.lint import LintOptions, render

        return render(analysis, fmt, LintOptions(record=options.record))

    return to_text


def _diff_text(result: DiffResult, options: ReportOptions) -> str:
    from tdiag.reports.diff_text import render_text

    return render_text(result, options)


def _diff_json(result: DiffResult, options: ReportOptions) -> str:
    return json.dumps(result.to_dict(options.fail_on), indent=2) + "\n"


def _fix_text(report: FixReport, options: ReportOptions) -> str:
    from tdiag.fixing.render import print_report

    out = io.StringIO()
    print_report(report, out, show_diffs=options.show_diffs)
    return out.getvalue()


def _fix_json(report: FixReport, options: ReportOptions) -> str:
    return json.dumps(report.to_dict(), indent=2, default=str) + "\n"


# lint format -> (renderer module in reports/lint, extensions, human readable). ``statistics``: findings counted
# per code (``tdiag lint --statistics`` picks it, or ``statistics-json`` with a JSON format).
LINT_FORMATS: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "full": ("full", (".txt",), True),
    "concise": ("concise", (".txt",), True),
    "json": ("json_array", (".json",), False),
    "json-lines": ("json_lines", (".jsonl",), False),
    "sarif": ("sarif", (".sarif", ".sarif.json"), False),
    "github": ("github", (".txt",), False),
    "junit": ("junit", (".xml",), False),
    "statistics": ("statistics", (".txt",), True),
    "statistics-json": ("statistics_json", (".json",), False),
}

REPORTERS: dict[str, Reporter] = {
    reporter.name: reporter
    for reporter in (
        ConsoleReporter(),
        TextReporter("json", (".json",), False, _json),
        TextReporter("html", (".html", ".htm"), True, _html),
        *(TextReporter(f"lint-{fmt}", ext, human, _lint(fmt)) for fmt, (_, ext, human) in LINT_FORMATS.items()),
        TextReporter("diff-text", (".txt",), True, _diff_text),
        TextReporter("diff-json", (".json",), False, _diff_json),
        TextReporter("fix-text", (".txt",), True, _fix_text),
        TextReporter("fix-json", (".json",), False, _fix_json),
    )
}


def get_reporter(name: str) -> Reporter:
    try:
        return REPORTERS[name]
    except KeyError:
        raise TdiagError(f"no output format {name!r} (known: {', '.join(sorted(REPORTERS))})") from None


def guess_format(output: str | Path | None, among: Iterable[str], default: str) -> str:
    """The reporter of ``among`` whose extension ``output`` ends with (the longest match), else ``default``."""
    name = str(output or "").lower()
    matches = [(len(ext), fmt) for fmt in among for ext in REPORTERS[fmt].extensions if name.endswith(ext)]
    return max(matches)[1] if matches else default


def write_report(reporter: Reporter[Subject], subject: Subject, output: str | Path | None, options: ReportOptions) -> None:
    """Render to stdout, or to ``output`` whole (never a half-written file); an unwritable path is a TdiagError."""
    if output is None:
        reporter.render(subject, sys.stdout, options)
        return
    buffer = io.StringIO()
    reporter.render(subject, buffer, options)
    write_text(buffer.getvalue(), output)


def write_text(text: str, output: str | Path) -> None:
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TdiagError(f"cannot write {output}: {exc.strerror or exc}") from None
