"""`tdiag diff` and analyzer.diff: matching findings across runs, count deltas, regressions."""

from __future__ import annotations

import copy
import json

from lint_helpers import tdiag
from tdiag.analyzer.diff import diff


def test_identical_analyses_have_no_changes(sample):
    result = diff(sample, copy.deepcopy(sample))
    assert not result.fixed and not result.new and len(result.unchanged) == len(sample.findings)
    assert result.regressions() == []


def test_moved_lines_still_match(sample):
    moved = copy.deepcopy(sample)
    for finding in moved.findings:
        finding.line += 3
    result = diff(sample, moved)
    assert not result.fixed and not result.new and len(result.unchanged) == len(sample.findings)


def test_removed_and_added_findings(sample):
    new = copy.deepcopy(sample)
    removed = new.findings.pop(2)
    new.summary.graph_breaks += 1
    result = diff(sample, new)
    assert [f.code for f in result.fixed] == [removed.code]
    reverse = diff(new, sample)
    assert [f.code for f in reverse.new] == [removed.code]
    assert any("new BRK001" in r for r in reverse.regressions())
    assert "graph breaks: 6 -> 7" in diff(sample, new).regressions()


def test_info_findings_are_not_regressions_by_default(sample):
    base = copy.deepcopy(sample)
    base.findings = [f for f in base.findings if f.code != "DYN001"]
    result = diff(base, sample)
    assert len(result.new) == 5 and result.regressions() == []
    assert len(result.regressions("info")) == 5


def test_cli_fixed_branch_is_no_regression(lint_records):
    proc = tdiag("diff", str(lint_records["branch"]), str(lint_records["branch_fixed"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = proc.stdout.split("fixed (")[1].split("new (")[0]
    assert "BRK001 graph break: branch on a tensor value" in fixed
    assert "no regressions" in proc.stdout


def test_cli_reintroduced_branch_is_a_regression(lint_records):
    proc = tdiag("diff", "--format", "json", str(lint_records["branch_fixed"]), str(lint_records["branch"]))
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert "BRK001" in [f["code"] for f in data["new"]]
    assert data["counts"]["graph_breaks"] == {"base": 0, "new": 1, "change": 1}
    assert data["counts"]["graphs"]["change"] == 1
    assert any(r.startswith("graph breaks") for r in data["regressions"])


def test_cli_bad_record_is_exit_2(lint_records, tmp_path):
    proc = tdiag("diff", str(lint_records["branch"]), str(tmp_path / "missing"))
    assert proc.returncode == 2


def test_a_measured_share_finding_is_new_but_never_a_regression(sample):
    """RUN findings exist because a measured share crossed a threshold: a loaded machine can make one appear, so a CI
    gate on `tdiag diff` must not fail on it (a structural finding of the same severity still does)."""
    new = copy.deepcopy(sample)
    warning = next(f for f in new.findings if f.severity == "warning" and f.family == "BRK")
    timing = copy.deepcopy(warning)
    timing.code, timing.line, timing.message = "RUN001", 99, "80% of each measured step runs outside compiled code"
    new.findings.append(timing)
    result = diff(sample, new)
    assert [f.code for f in result.new] == ["RUN001"] and result.regressions() == []
    structural = copy.deepcopy(warning)
    structural.line = 98
    new.findings.append(structural)
    assert [r.split(" at ")[0] for r in diff(sample, new).regressions()] == [f"new {warning.code}"]
