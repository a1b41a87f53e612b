"""A family's rules are not even imported where the analysis lacks what they all read (FAMILY_INPUTS; issue 26: the
summary of a short run). That must never change a finding: on real records, the rules run as the summary runs them
find exactly what every registered rule finds."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tdiag.analyzer import build
from tdiag.analyzer.rules import FAMILY_INPUTS, RuleContext, applicable, registry, run_rules

GATED = set(FAMILY_INPUTS)


def _every_rule(analysis, log):
    ctx = RuleContext(analysis, log)  # rules=None: every registered rule competes for breaks and recompiles
    return [f for entry in registry().values() for f in (entry.check(ctx) or [])]


def _key(findings):
    return sorted((f.code, f.path, f.line, f.message) for f in findings)


def _analysed(run_dir):
    from tdiag.analyzer.events import load

    log = load(run_dir)
    return build(run_dir, suggestions=False), log


@pytest.mark.parametrize("program", ["data_dependent_if.py", "print_call.py", "item_call.py"])
def test_gated_rules_find_what_every_rule_finds(recorded, program):
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    analysis, log = _analysed(run_dir)
    gated = run_rules(analysis, log)
    assert gated and _key(gated) == _key(_every_rule(analysis, log))
    skipped = {code.rstrip("0123456789") for code in registry()} - {e.rule.family for e in applicable(RuleContext(analysis, log))}
    assert skipped == GATED  # a Dynamo-only run without crash, kernels, CUDA graphs, ranks or a measured window


# What the end-of-run summary imports, seen by the interpreter itself: a fresh process (this one has imported every
# rule already), the summary's analysis, then the rule modules in sys.modules.
_IMPORTED_RULES = """
import json, sys
from tdiag.analyzer import build
build(sys.argv[1], suggestions=False)
prefix = "tdiag.analyzer.rules."
print(json.dumps(sorted(m[len(prefix):].split("_", 1)[0].upper() for m in sys.modules
                        if m.startswith(prefix) and not m[len(prefix):].startswith("_"))))
"""


def _imported_rule_codes(run_dir) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", _IMPORTED_RULES, str(run_dir)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("program", ["batch_size_change.py", "data_dependent_if.py"])
def test_gated_families_are_not_imported(recorded, program):
    """A record with recompiles (the recompile rules once asked every registered rule which one owns a recompile,
    importing all 34 modules) and one with breaks: no module of a family whose input the record lacks is loaded."""
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    analysis, _ = _analysed(run_dir)
    assert analysis.recompiles if program == "batch_size_change.py" else analysis.breaks
    imported = {code.rstrip("0123456789") for code in _imported_rule_codes(run_dir)}
    assert imported and not imported & GATED, sorted(imported & GATED)


def test_a_measured_window_brings_the_runtime_rules_in(hot_loop_record):
    analysis, log = _analysed(hot_loop_record)
    assert "RUN" in {e.rule.family for e in applicable(RuleContext(analysis, log))}
    assert _key(run_rules(analysis, log)) == _key(_every_rule(analysis, log))


def test_every_gated_family_has_rules():
    families = {code.rstrip("0123456789") for code in registry()}
    assert GATED <= families and "DST" not in GATED  # DST002 speaks of nothing compiled: it needs no DDP data
