"""``--statistics`` (``--format statistics``): findings counted per code, most frequent first (flake8's
``--statistics``, ruff's layout). ``statistics-json`` (``--statistics`` with a JSON format) is in statistics_json.py."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding
    from tdiag.reports.lint.options import LintOptions


def code_counts(findings: list[Finding]) -> list[dict[str, Any]]:
    counts = Counter(f.code for f in findings)
    first = {}
    for f in findings:
        first.setdefault(f.code, f)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [{"code": c, "name": first[c].name, "severity": first[c].severity, "count": n} for c, n in ranked]


def render(analysis: Analysis, options: LintOptions) -> str:
    rows = code_counts(analysis.findings)
    if not rows:
        return ""
    count_width = max(len(str(r["count"])) for r in rows)
    code_width = max(len(r["code"]) for r in rows)
    return "".join(f"{r['count']:>{count_width}}\t{r['code']:<{code_width}}\t{r['name']}\n" for r in rows)
