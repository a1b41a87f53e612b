"""Unit tests: --select/--ignore semantics and the GitHub job-summary budget."""

from __future__ import annotations

import pytest
from tdiag.reports.lint.selection import CodeSelection, UnknownSelector, parse_selectors
from tdiag.reports.lint.step_summary import STEP_SUMMARY_LIMIT, fit_to_budget, markdown_summary

KNOWN = ["BRK001", "BRK002", "RCP001", "DYN001"]
FAMILIES = ["BRK", "RCP", "DYN", "LOW"]


def test_parse_selectors():
    assert parse_selectors(["brk, RCP001", "dyn", ""]) == ["BRK", "RCP001", "DYN"]
    assert parse_selectors(None) == []


def test_select_then_ignore():
    selection = CodeSelection(("BRK", "RCP001"), ("BRK002",))
    assert [c for c in KNOWN if selection.includes(c)] == ["BRK001", "RCP001"]
    assert all(CodeSelection().includes(c) for c in KNOWN)
    assert CodeSelection(("BRK00",)).includes("BRK001")


def test_unknown_selectors_are_named():
    CodeSelection(("ALL", "LOW", "BRK00"), ("DYN001",)).validate(KNOWN, FAMILIES)  # a family with no rule yet is known
    with pytest.raises(UnknownSelector) as info:
        CodeSelection(("BRK", "FOO"), ("RCP999",)).validate(KNOWN, FAMILIES)
    assert info.value.selectors == ["FOO", "RCP999"]


def test_summary_fits_the_budget(sample):
    text = markdown_summary(sample)
    assert fit_to_budget(text, 0) == text
    assert fit_to_budget(text, STEP_SUMMARY_LIMIT) == ""
    cut = fit_to_budget(text, STEP_SUMMARY_LIMIT - 300)
    assert len(cut.encode()) <= 300 and cut.endswith("step-summary limit)_\n")


def test_summary_escapes_table_cells(sample):
    sample.findings[0].message = "a | b\nc"
    assert "a \\| b c" in markdown_summary(sample)
