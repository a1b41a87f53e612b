"""The README's rule table is generated from the rules (scripts/readme_rules.py): a rule added, renamed or
reworded without regenerating it fails here."""

from __future__ import annotations

import runpy
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "readme_rules.py"


def test_the_readme_rule_table_is_what_the_rules_say():
    script = runpy.run_path(str(SCRIPT))
    readme = script["README"].read_text(encoding="utf-8")
    assert readme == script["with_table"](readme), "run: python scripts/readme_rules.py --write"


def test_every_rule_has_its_row():
    from tdiag.analyzer.rules import all_rules

    table = runpy.run_path(str(SCRIPT))["table"]()
    for rule in all_rules():
        assert f"| {rule.code} | {rule.name} |" in table
