"""The one fixture Analysis through every lint renderer, compared with golden files."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

import pytest
from lint_helpers import check_golden
from tdiag.reports.lint import HUMAN_FORMATS, LISTING_FORMATS, LintOptions, render
from tdiag.reports.lint.step_summary import markdown_summary

EXTENSIONS = {"json": "json", "json-lines": "jsonl", "sarif": "sarif", "junit": "xml"}
OPTIONS = LintOptions(record="tdiag-runs/train")


@pytest.mark.parametrize("fmt", sorted(LISTING_FORMATS))
def test_golden(sample, fmt):
    check_golden(f"sample.{fmt}.{EXTENSIONS.get(fmt, 'txt')}", render(sample, fmt, OPTIONS))


@pytest.mark.parametrize("fmt", sorted(LISTING_FORMATS))
def test_output_is_deterministic_and_has_no_absolute_paths(sample, fmt):
    first, second = render(sample, fmt, OPTIONS), render(sample, fmt, OPTIONS)
    assert first == second
    for machine_dir in ("tmp", "work", "home", "root"):
        assert f"/{machine_dir}/" not in first


@pytest.mark.parametrize("fmt", sorted(LISTING_FORMATS))
def test_every_finding_appears_once(sample, fmt):
    text = render(sample, fmt, OPTIONS)
    for finding in sample.findings:
        assert finding.code in text
    if fmt in ("concise", "github", "json-lines"):
        assert len([line for line in text.splitlines() if line.strip() and not line.startswith(("Found", "Run "))]) == len(sample.findings)


@pytest.mark.parametrize("fmt", sorted(LISTING_FORMATS))
def test_footer_only_in_human_formats(sample, fmt):
    text = render(sample, fmt, OPTIONS)
    assert ("Found 10 findings" in text) == (fmt in HUMAN_FORMATS)


@pytest.mark.parametrize("fmt", sorted(LISTING_FORMATS))
def test_no_findings(sample, fmt):
    empty = dataclasses.replace(sample, findings=[])
    text = render(empty, fmt, OPTIONS)
    check_golden(f"empty.{fmt}.{EXTENSIONS.get(fmt, 'txt')}", text)


def test_machine_formats_parse(sample):
    records = json.loads(render(sample, "json"))
    assert [json.loads(line) for line in render(sample, "json-lines").splitlines()] == records
    item = next(r for r in records if r["code"] == "BRK002")
    assert item["location"] == {"row": 36, "column": 17} and item["end_location"] == {"row": 36, "column": 37}
    assert item["url"].startswith("https://") and item["gb_id"] == "GB0124"
    assert item["filename"] == "train.py" and item["fix"]["message"]
    suites = ET.fromstring(render(sample, "junit"))
    assert suites.get("failures") == "10" and len(suites.findall(".//failure")) == 10


def test_full_format_carets_under_the_span(sample):
    text = render(sample, "full", OPTIONS)
    block = text[text.index("train.py:36:17: BRK002"):]
    lines = block.splitlines()
    source = next(line for line in lines if line.startswith("36 |"))
    caret = lines[lines.index(source) + 1]
    start = caret.index("^")
    assert source[start:start + caret.count("^")] == "h.abs().max().item()"
    assert "= help: " in block  # the fixture Analysis is not finished: its fix lines carry no standing


def test_statistics_golden(sample):
    check_golden("sample.statistics.txt", render(sample, "statistics"))
    counts = json.loads(render(sample, "statistics-json"))
    assert counts[0] == {"code": "DYN001", "name": "automatic-dynamic", "severity": "info", "count": 5}
    assert [c["count"] for c in counts] == sorted((c["count"] for c in counts), reverse=True)


def test_step_summary_golden(sample):
    check_golden("sample.step-summary.md", markdown_summary(sample))
