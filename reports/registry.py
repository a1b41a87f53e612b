"""One Reporter protocol and one registry for every output: console summary, JSON, HTML, each lint format, diff.

A command parses its arguments, loads the Analysis through ``tdiag/commands/_analysis.py`` and hands it to a
reporter found here by name; writing to stdout or a file, and failing clearly (exit 2) when the file cannot be
written, happens once in ``write_report``. Renderers are imported when first used, so that picking one stays cheap.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from tdiag.errors import TdiagError


@dataclass(frozen=True)
class ReportOptions:
    """What a reporter may be told besides its subject; each reporter reads the fields it needs."""

    record: str | None = None  # how the user named the record (lint footers' "tdiag tui RECORD" hint)
    run_dir: Path | None = None  # console summary: the record's "open it" lines
    include_code: bool = True  # JSON: generated code and graph text
    base: str = ""  # diff: how the two records were named
    new: str = ""
    fail_on: str = "warning"  # diff: the severity that makes a new finding a regression


class Reporter(Protocol):
    name: str
    extension: str  # the usual file extension, with its dot
    is_human_readable: bool

    def render(self, subject: Any, out: TextIO, options: ReportOptions) -> None:
        """Write ``subject`` (an Analysis; a DiffResult for the diff reporters) to ``out``."""


@dataclass(frozen=True)
class TextReporter:
    """A reporter made of a function that returns the whole text."""

    name: str
    extension: str
    is_human_readable: bool
    to_text: Callable[[Any, ReportOptions], str]

    def render(self, subject: Any, out: TextIO, options: ReportOptions) -> None:
        out.write(self.to_text(subject, options))


@dataclass(frozen=True)
class ConsoleReporter:
    name: str = "console"
    extension: str = ".txt"
    is_human_readable: bool = True

    def render(self, subject: Any, out: TextIO, options: ReportOptions) -> None:
        from tdiag.reports.console import print_summary

        print_summary(subject, options.run_dir, file=out)


def _json(analysis: Any, options: ReportOptions) -> str:
    return json.dumps(analysis.to_dict(include_code=options.include_code), indent=2, default=str) + "\n"


def _html(analysis: Any, options: ReportOptions) -> str:
    from tdiag.reports.html import render_html

    return render_html(analysis)


def _lint(fmt: str) -> Callable[[Any, ReportOptions], str]:
    def to_text(analysis: Any, options: ReportOptions) -> str:
        from tdiag.reports.lint import LintOptions, render

        return render(analysis, fmt, LintOptions(record=options.record))

    return to_text


def _diff_text(result: Any, options: ReportOptions) -> str:
    from tdiag.reports.diff_text import render_text

    return render_text(result, options)


def _diff_json(result: Any, options: ReportOptions) -> str:
    return json.dumps(result.to_dict(options.fail_on), indent=2) + "\n"


# lint format -> (extension, human readable); the renderers themselves are in reports/lint.
LINT_FORMATS = {
    "full": (".txt", True), "concise": (".txt", True), "json": (".json", False), "json-lines": (".jsonl", False),
    "sarif": (".sarif", False), "github": (".txt", False), "junit": (".xml", False),
}

REPORTERS: dict[str, Reporter] = {
    reporter.name: reporter
    for reporter in (
        ConsoleReporter(),
        TextReporter("json", ".json", False, _json),
        TextReporter("html", ".html", True, _html),
        *(TextReporter(f"lint-{fmt}", ext, human, _lint(fmt)) for fmt, (ext, human) in LINT_FORMATS.items()),
        TextReporter("diff-text", ".txt", True, _diff_text),
        TextReporter("diff-json", ".json", False, _diff_json),
    )
}


def get_reporter(name: str) -> Reporter:
    try:
        return REPORTERS[name]
    except KeyError:
        raise TdiagError(f"no output format {name!r} (known: {', '.join(sorted(REPORTERS))})") from None


def write_report(reporter: Reporter, subject: Any, output: str | Path | None, options: ReportOptions) -> None:
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
