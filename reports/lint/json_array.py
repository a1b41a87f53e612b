"""``--format json``: a JSON array of finding records, in file order."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tdiag.reports.lint.diagnostics import ordered
from tdiag.reports.lint.records import finding_record

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis
    from tdiag.reports.lint.options import LintOptions


def render(analysis: Analysis, options: LintOptions) -> str:
    records = [finding_record(analysis, f) for f in ordered(analysis.findings)]
    return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
