"""``--format json-lines``: one finding record per line, for streaming consumers (``jq -c``, log shippers)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tdiag.reports.lint.diagnostics import ordered
from tdiag.reports.lint.records import finding_record

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis
    from tdiag.reports.lint.options import LintOptions


def render(analysis: Analysis, options: LintOptions) -> str:
    return "".join(
        json.dumps(finding_record(analysis, f), ensure_ascii=False) + "\n" for f in ordered(analysis.findings)
    )
