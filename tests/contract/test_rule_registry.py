"""A rule owns its predicate and names its patch kind: one module, one registry row, no rules <-> suggestions cycle."""

from __future__ import annotations

import inspect
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
def test_each_named_patch_kind_is_registered_and_resolves(rule):
    from tdiag.analyzer.suggestions.kinds import PATCH_KINDS, resolve

    kind = PATCH_KINDS[rule.suggester]
    for reference in filter(None, (kind.suggest, kind.fallback)):
        function = resolve(reference)
        assert list(inspect.signature(function).parameters)[:2] == ["finding", "ctx"], reference


def test_every_patch_kind_is_named_by_a_rule_and_every_suggest_or_fallback_function_is_registered():
    """A module's ``fallback`` left out of the table would silently never run; a kind that neither a rule nor a
    catalogue candidate (its ``builder``) names is dead."""
    import importlib

    from tdiag.analyzer import catalogue
    from tdiag.analyzer.suggestions.kinds import PATCH_KINDS

    built = {c.builder for e in catalogue.breaks() + catalogue.guards() for c in e.candidates if c.builder}
    assert set(PATCH_KINDS) == {rule.suggester for rule in SUGGESTED} | built
    for name, kind in PATCH_KINDS.items():
        module = importlib.import_module(kind.suggest.partition(":")[0])
        if callable(getattr(module, "fallback", None)):
            assert kind.fallback == f"{module.__name__}:fallback", name


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
    """analyzer/suggestions/ is the suggesters rules name (Rule.suggester), the generic one, library_fix, the
    catalogue's candidates and compile_module (dispatch asks them), the dispatch and the table of patch kinds; everything shared lives in suggestions/helpers."""
    import pkgutil

    import tdiag.analyzer.suggestions as suggestions
    import tdiag.analyzer.suggestions.helpers as helpers

    named = {rule.suggester for rule in all_rules() if rule.suggester}
    top = {m.name for m in pkgutil.iter_modules(suggestions.__path__) if not m.ispkg}
    assert top - named == {"catalogue_candidates", "compile_module", "dispatch", "generic", "kinds",
                           "library_fix"}, top - named
    assert not named & {m.name for m in pkgutil.iter_modules(helpers.__path__)}
