"""The one order of findings (analyzer/ranking.py), used by every output: what stopped the program first, torch's
deliberate breaks (by_design) after every fixable finding however much they cost, then cost, then severity."""

from __future__ import annotations

from tdiag.analyzer.model import Cost, Finding
from tdiag.analyzer.ranking import rank_key


def _finding(code: str, line: int, **fields) -> Finding:
    return Finding(code, "name", fields.pop("severity", "warning"), "message", "fix", "a.py", line, **fields)


def test_by_design_ranks_after_every_fixable_finding_whatever_it_costs():
    crash = _finding("CRS001", 1, severity="error")
    deliberate = _finding("BRK005", 2, by_design=True, severity="info", cost=Cost(total_s=50.0, basis="measured"))
    uncosted = _finding("BRK002", 3, severity="info")  # no cost at all, lowest severity
    compile_cost = _finding("RCP001", 4, cost=Cost(total_s=1.0, basis="compile"))
    measured = _finding("BRK001", 5, cost=Cost(total_s=0.001, basis="measured"))
    ranked = sorted([deliberate, uncosted, compile_cost, measured, crash], key=rank_key)
    assert ranked == [crash, measured, compile_cost, uncosted, deliberate]


def test_without_costs_severity_then_impact_decide():
    low = _finding("BRK001", 1, impact=1.0)
    high = _finding("BRK002", 2, impact=5.0)
    error = _finding("CMP003", 3, severity="error")
    assert sorted([low, high, error], key=rank_key) == [error, high, low]
