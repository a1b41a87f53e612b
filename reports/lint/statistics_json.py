"""``--statistics`` with a JSON format: the per-code counts as a JSON array (code, name, severity, count)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tdiag.reports.lint.statistics import code_counts

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis
    from tdiag.reports.lint.options import LintOptions


def render(analysis: Analysis, options: LintOptions) -> str:
    return json.dumps(code_counts(analysis.findings), indent=2) + "\n"
