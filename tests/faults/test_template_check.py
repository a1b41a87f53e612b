"""A claiming rule's message and fix templates are checked when the rule loads: a placeholder its claim's words do
not provide is refused then, with what the words are, instead of raising while a user's run is analysed (where it
would cost the rule its findings). Without the check, _load accepted these modules."""

from __future__ import annotations

import types

import pytest
from tdiag.analyzer import build
from tdiag.analyzer.rules import Rule, TemplateError, _breaks, _load, _recompiles


def _module(rule: Rule) -> types.ModuleType:
    module = types.ModuleType("tdiag.analyzer.rules.zzz_template_probe")
    module.__doc__ = "## What it does\nA probe."
    module.RULE = rule
    module.matches = lambda *event: True
    return module


def test_an_unknown_placeholder_is_refused_at_load():
    rule = Rule("BRK090", "typo", "warning", "x", claims="breaks", message="graph break ({reasn}){where}", fix="f")
    with pytest.raises(TemplateError, match=r"message template names \{reasn\}.*reason, where, function, hint"):
        _load(_module(rule))
    rule = Rule("RCP090", "typo", "warning", "x", claims="recompiles", message="{frame} recompiled",
                fix="torch._dynamo.mark_dynamic({subjet}, {dim_index})")
    with pytest.raises(TemplateError, match=r"fix template names \{subjet\}.*frame, subject"):
        _load(_module(rule))


def test_a_malformed_template_is_refused_at_load():
    rule = Rule("BRK091", "typo", "warning", "x", claims="breaks", message="graph break {reason", fix="f")
    with pytest.raises(TemplateError, match="malformed"):
        _load(_module(rule))


def test_a_correct_template_loads():
    rule = Rule("BRK092", "fine", "warning", "x", claims="breaks", message="graph break ({reason}){where}",
                fix="move {function}'s call out")
    assert _load(_module(rule)).rule.code == "BRK092"


def test_the_checked_words_are_the_words_a_finding_is_worded_with(recorded):
    """WORDS (what the check admits) is what words() gives on a real break and a real recompile."""
    run_dir, proc = recorded("branch_and_sizes.py")
    assert proc.returncode == 0, proc.stderr[-2000:]
    analysis = build(run_dir)
    assert analysis.breaks and analysis.recompiles
    assert set(_breaks.words(analysis.breaks[0])) == set(_breaks.WORDS)
    recompile = analysis.recompiles[0]
    assert set(_recompiles.words(recompile, recompile.failures[0])) == set(_recompiles.WORDS)
