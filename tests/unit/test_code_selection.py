"""lint and fix pick findings with one selector (ruff's semantics): ALL, families, prefixes; a typo is a usage error."""

from __future__ import annotations

import pytest
from tdiag.analyzer.rules import all_rules
from tdiag.reports.registry import guess_format
from tdiag_testing import run_tdiag

from tdiag.commands._selection import selected_codes
from tdiag.errors import TdiagError

CODES = [rule.code for rule in all_rules()]


def test_all_families_prefixes_and_ignore():
    assert selected_codes(["ALL"], None) == CODES
    assert selected_codes(None, None) == CODES
    assert selected_codes(["brk"], ["BRK099"]) == [c for c in CODES if c.startswith("BRK") and c != "BRK099"]
    assert selected_codes(["RCP00"], None) == [c for c in CODES if c.startswith("RCP00")]
    assert selected_codes(["ALL"], ["ALL"]) == []


@pytest.mark.parametrize("typo", ["BRX", "BRK1", "ALLL"])
def test_a_typo_is_refused_not_an_empty_selection(typo):
    with pytest.raises(TdiagError, match=f"unknown rule code or prefix: {typo}"):
        selected_codes([typo], None)


def test_fix_refuses_a_typo_before_reading_the_record(tmp_path, session_env):
    # the record does not exist: the selector is checked first, with lint's message and exit 2
    proc = run_tdiag(["fix", str(tmp_path / "none"), "--select", "BRX"], session_env)
    assert proc.returncode == 2 and "unknown rule code or prefix: BRX" in proc.stderr, proc.stderr


def test_report_format_from_the_registry_extensions():
    assert guess_format("out/report.HTM", ("json", "html"), "json") == "html"
    assert guess_format("r.json", ("json", "html"), "html") == "json"
    assert guess_format(None, ("json", "html"), "json") == "json"
    assert guess_format("scan.sarif.json", ("lint-json", "lint-sarif"), "lint-full") == "lint-sarif"  # longest wins
