"""The JSON object for one finding, shared by ``json`` and ``json-lines`` (ruff's record, plus torch's evidence)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from tdiag.reports.lint.diagnostics import span

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding


def finding_record(analysis: Analysis, finding: Finding) -> dict[str, Any]:
    start, end = span(analysis, finding)
    patch = finding.suggestion.patch if finding.suggestion else None
    record = {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity,
        "filename": finding.path,
        "location": {"row": finding.line, "column": start},
        "end_location": {"row": finding.line, "column": end},
        "function": finding.function,
        "fix": {"message": finding.fix, "patch": patch, "status": finding.fix_status, "verdict": finding.fix_verdict}
        if finding.fix or patch else None,
        "url": finding.gb_url,
        "occurrences": finding.occurrences,
        "compile_ids": list(finding.compile_ids),
        "gb_id": finding.gb_id,
    }
    if finding.cost is not None:  # only records with runtime data: outputs of older records stay as they were
        record["cost"] = dataclasses.asdict(finding.cost)
    return record
