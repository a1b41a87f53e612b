"""``--format sarif``: SARIF 2.1.0 as GitHub code scanning accepts it (upload with github/codeql-action/upload-sarif).

One run, tool ``tdiag`` with one rule descriptor per code that has findings (its docstring is the full description
and the help), one result per finding with a repo-relative artifact URI and a region. ``primaryLocationLineHash``
hashes the code, the path and the text of the line rather than its number, so an alert survives edits above it;
raw API uploads without it produce duplicate alerts.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from tdiag.analyzer import capture_health
from tdiag.analyzer.rules import get_rule
from tdiag.reports.lint.diagnostics import SARIF_LEVELS, ordered, source_line, span

import tdiag
from tdiag.analyzer.fix_status import label as fix_label

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding
    from tdiag.reports.lint.options import LintOptions

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def render(analysis: Analysis, options: LintOptions) -> str:
    findings = ordered(analysis.findings)
    codes = sorted({f.code for f in findings})
    rule_index = {code: i for i, code in enumerate(codes)}
    fingerprints = _line_hashes(analysis, findings)
    results = [_result(analysis, f, rule_index[f.code], fp) for f, fp in zip(findings, fingerprints)]
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "tdiag", "version": tdiag.__version__, "rules": [_rule(c, findings) for c in codes]}},
                "results": results,
                **_invocations(analysis),
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _invocations(analysis: Analysis) -> dict[str, Any]:
    """Only for an incomplete capture or analysis (the run did not succeed, and why) or an untested torch (a note), so
    a complete run on a tested torch has an unchanged log."""
    run = analysis.run
    if not capture_health.is_incomplete(run) and not run.torch_notice:
        return {}
    notes = [
        {"level": "error", "descriptor": {"id": "capture-incomplete"}, "message": {"text": text}}
        for text in capture_health.lines(run.capture_problems)
    ] + [
        {"level": "error", "descriptor": {"id": "analysis-incomplete"}, "message": {"text": capture_health.analysis_line(p)}}
        for p in run.analysis_problems
    ]
    if run.torch_notice:  # a torch outside the tested matrix: said, the run still succeeded
        notes.insert(0, {"level": "note", "descriptor": {"id": "torch-untested"}, "message": {"text": run.torch_notice}})
    return {"invocations": [{"executionSuccessful": not capture_health.is_incomplete(run),
                             "toolExecutionNotifications": notes}]}


def _rule(code: str, findings: list[Finding]) -> dict[str, Any]:
    rule = get_rule(code)
    if rule is None:  # a record analysed by a newer tdiag may name a rule this one lacks: describe it from a finding
        example = next(f for f in findings if f.code == code)
        name, severity, summary, doc = example.name, example.severity, example.message, example.message
    else:
        name, severity, summary, doc = rule.name, rule.severity, rule.summary, rule.doc or rule.summary
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": doc, "markdown": doc},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": SARIF_LEVELS[severity]},
        "properties": {"tags": [code.rstrip("0123456789")]},
    }


def _result(analysis: Analysis, finding: Finding, index: int, line_hash: str) -> dict[str, Any]:
    start, end = span(analysis, finding)
    text = finding.message + (f"\n{fix_label('Fix', finding)}: {finding.fix}" if finding.fix else "")
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index,
        "level": SARIF_LEVELS[finding.severity],
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": finding.path},
                    "region": {"startLine": finding.line, "startColumn": start, "endLine": finding.line, "endColumn": end},
                }
            }
        ],
        "partialFingerprints": {"primaryLocationLineHash": line_hash},
        "properties": {"occurrences": finding.occurrences, "compileIds": list(finding.compile_ids)},
    }
    if finding.gb_id:
        result["properties"]["gbId"] = finding.gb_id
    if finding.cost is not None:
        c = finding.cost
        result["properties"]["cost"] = {"totalS": c.total_s, "perCallMs": c.per_call_ms, "share": c.share, "basis": c.basis,
                                        "lowerBound": c.lower_bound, **({"caveat": c.caveat} if c.caveat else {})}
    return result


def _line_hashes(analysis: Analysis, findings: list[Finding]) -> list[str]:
    """GitHub's own scheme: a hash of the whitespace-normalised line plus ``:n`` to tell identical lines apart."""
    seen: Counter[str] = Counter()
    hashes = []
    for f in findings:
        text = " ".join((source_line(analysis, f) or f"line {f.line}").split())
        digest = hashlib.sha256(f"{f.code}\0{f.path}\0{text}".encode()).hexdigest()[:16]
        seen[digest] += 1
        hashes.append(f"{digest}:{seen[digest]}")
    return hashes
