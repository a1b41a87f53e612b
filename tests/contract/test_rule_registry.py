"""A rule owns its predicate and its suggester: one module, one registry row, no rules <-> suggestions cycle."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest
from tdiag.analyzer.rules import all_rules

SUGGESTED = [rule for rule in all_rules() if rule.suggester]


def test_rules_that_offer_a_rewrite_name_their_suggester():
    # the break and recompile rules whose fixes are code rewrites (issue 4's patches) each name one
    codes = {rule.code for rule in SUGGESTED}
    assert {"BRK001", "BRK002", "BRK004", "RCP001", "RCP002", "DYN001"} <= codes


@pytest.mark.parametrize("rule", SUGGESTED, ids=lambda r: r.code)
def test_each_named_suggester_exists(rule):
    module = importlib.import_module(f"tdiag.analyzer.suggestions.{rule.suggester}")
    assert callable(getattr(module, "suggest", None)), rule.suggester


def test_running_the_rules_loads_no_suggestion_machinery():
    code = (
        "import sys, json\n"
        "from tdiag.analyzer.model import Analysis\n"
        "from tdiag.analyzer.rules import run_rules\n"
        "run_rules(Analysis(), None)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tdiag.analyzer.suggestions') or m == 'libcst')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == []


def test_suggestions_holds_suggesters_and_its_helpers_package_the_rest():
    """analyzer/suggestions/ is the suggesters rules name (Rule.suggester), the generic one and library_fix (dispatch
    asks them), and the dispatch; everything shared lives in suggestions/helpers, which no rule names."""
    import pkgutil

    import tdiag.analyzer.suggestions as suggestions
    import tdiag.analyzer.suggestions.helpers as helpers

    named = {rule.suggester for rule in all_rules() if rule.suggester}
    top = {m.name for m in pkgutil.iter_modules(suggestions.__path__) if not m.ispkg}
    assert top - named == {"dispatch", "generic", "library_fix"}, top - named
    assert not named & {m.name for m in pkgutil.iter_modules(helpers.__path__)}
