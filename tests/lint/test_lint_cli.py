"""`tdiag lint` through the real CLI on real records: selection, thresholds, exit codes, files, job summary."""

from __future__ import annotations

import json

import pytest
from lint_helpers import tdiag


def codes(stdout: str) -> set[str]:
    return {item["code"] for item in json.loads(stdout)}


def test_default_full_format_exits_1_on_a_warning(lint_records):
    proc = tdiag("lint", "--select", "BRK", str(lint_records["branch"]))
    assert proc.returncode == 1, proc.stderr
    assert "data_dependent_if.py:7:8: BRK001 " in proc.stdout
    assert "^^^" in proc.stdout and "= help (unverified): " in proc.stdout  # a fix line is a candidate until fix --verify
    assert "Found 1 finding (1 warning)." in proc.stdout


def test_clean_record_exits_0(lint_records):
    proc = tdiag("lint", "--format", "concise", "--select", "BRK,RCP", str(lint_records["branch_fixed"]))
    assert proc.returncode == 0, proc.stderr
    assert "All checks passed" in proc.stdout


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "github", "junit"])
def test_machine_formats_print_only_the_report(lint_records, fmt):
    proc = tdiag("lint", "--format", fmt, "--select", "BRK", str(lint_records["branch"]))
    assert proc.returncode == 1
    assert "Found" not in proc.stdout
    if fmt in ("json", "sarif"):
        json.loads(proc.stdout)
    if fmt == "github":
        assert proc.stdout.startswith("::warning title=tdiag (BRK001),file=data_dependent_if.py,line=7,col=8,")


def test_select_and_ignore_by_family_and_code(lint_records):
    record = str(lint_records["batch"])
    everything = codes(tdiag("lint", "--format", "json", record).stdout)
    # the batch-size change is one finding (RCP001); its automatic-dynamic decision is part of it, not a DYN001
    assert "RCP001" in everything and "DYN001" not in everything
    assert codes(tdiag("lint", "--format", "json", "--select", "rcp", record).stdout) == {"RCP001"}
    assert codes(tdiag("lint", "--format", "json", "--select", "RCP,DYN001", record).stdout) == {"RCP001"}
    assert codes(tdiag("lint", "--format", "json", "--ignore", "RCP001", "--ignore", "DYN", record).stdout) == everything - {"RCP001"}


def test_unknown_codes_are_a_usage_error(lint_records):
    proc = tdiag("lint", "--select", "BRK,NOPE1", "--ignore", "XYZ", str(lint_records["branch"]))
    assert proc.returncode == 2
    assert "NOPE1" in proc.stderr and "XYZ" in proc.stderr
    assert proc.stdout == ""


def test_findings_below_the_threshold_do_not_fail(lint_records):
    # The batch record's only problem is RCP001 (a warning): its automatic-dynamic decision is part of that finding,
    # so these records hold no info finding that does not depend on timing (CMP002); the threshold is the same code.
    record = str(lint_records["batch"])
    assert tdiag("lint", "--select", "RCP", "--fail-on", "error", record).returncode == 0
    assert tdiag("lint", "--select", "RCP", record).returncode == 1


def test_fail_on_error_and_exit_zero(lint_records):
    record = str(lint_records["branch"])
    assert tdiag("lint", "--select", "BRK", "--fail-on", "error", record).returncode == 0
    proc = tdiag("lint", "--exit-zero", record)
    assert proc.returncode == 0 and "BRK001" in proc.stdout


def test_statistics(lint_records):
    proc = tdiag("lint", "--statistics", str(lint_records["batch"]))
    assert proc.returncode == 1
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    assert [r[1].strip() for r in rows] and all(len(r) == 3 for r in rows)
    counts = [int(r[0]) for r in rows]
    assert counts == sorted(counts, reverse=True)
    stats = json.loads(tdiag("lint", "--statistics", "--format", "json", str(lint_records["batch"])).stdout)
    assert {s["code"] for s in stats} >= {"RCP001"}


def test_output_file(lint_records, tmp_path):
    target = tmp_path / "report.sarif"
    proc = tdiag("lint", "--format", "sarif", "--select", "BRK", "--output-file", str(target), str(lint_records["branch"]))
    assert proc.returncode == 1 and proc.stdout == ""
    assert json.loads(target.read_text())["runs"][0]["results"][0]["ruleId"] == "BRK001"


def test_github_step_summary_is_appended(lint_records, tmp_path, session_env):
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    env = {**session_env, "GITHUB_STEP_SUMMARY": str(summary)}
    tdiag("lint", "--format", "github", "--select", "BRK", str(lint_records["branch"]), env=env)
    text = summary.read_text()
    assert text.startswith("# earlier step\n### tdiag lint")
    assert "| warning | `BRK001` | `data_dependent_if.py:7` |" in text


@pytest.mark.parametrize("content", ["this is not a record\n", '{"type": "header", "format": "something-else"}\n', ""])
def test_corrupt_or_foreign_file_is_exit_2(tmp_path, content):
    bad = tmp_path / "events.jsonl"
    bad.write_text(content)
    proc = tdiag("lint", str(bad))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("tdiag lint: error:")


def test_missing_record_is_exit_2(tmp_path):
    proc = tdiag("lint", str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and "no record" in proc.stderr
