"""The rule table of docs/rules.md is generated from the rules (scripts/rules_table.py): a rule added, renamed or
reworded without regenerating it fails here. The README keeps one line per family and points to that page."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "rules_table.py"


def test_the_rule_table_is_what_the_rules_say():
    script = runpy.run_path(str(SCRIPT))
    page = script["RULES_DOC"].read_text(encoding="utf-8")
    assert script["RULES_DOC"] == REPO / "docs" / "rules.md"
    assert page == script["with_table"](page), "run: python scripts/rules_table.py --write"


def test_every_rule_has_its_row():
    from tdiag.analyzer.rules import all_rules

    table = runpy.run_path(str(SCRIPT))["table"]()
    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in all_rules():
        assert f"| {rule.code} | {rule.name} |" in table
        assert f"| {rule.code} | {rule.name} |" in page


def test_the_readme_names_every_family_and_links_the_table():
    from tdiag.analyzer.rules import families

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Rules", 1)[1].split("\n## ", 1)[0]
    assert "(docs/rules.md)" in section
    named = set(re.findall(r"^\| `?([A-Z]{3})`? \|", section, flags=re.M))
    assert named == set(families()), "the README's family summary: one row per rule family"
