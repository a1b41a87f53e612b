"""``--format concise``: one ``path:line:col: CODE message`` line per finding, then the footer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdiag.analyzer.crash import headline as crash_headline
from tdiag.analyzer.eager_compare import line as eager_line
from tdiag.reports.lint.diagnostics import diagnostic_line, ordered
from tdiag.reports.lint.footer import footer

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis
    from tdiag.reports.lint.options import LintOptions


def render(analysis: Analysis, options: LintOptions) -> str:
    lines = [diagnostic_line(f) + "\n" for f in ordered(analysis.findings)]
    return "".join(lines) + footer(analysis.findings, options, analysis.run, crash_headline(analysis),
                                   eager_line(analysis))
