"""The one order of findings (analyzer/ranking.py), used by every output: what stopped the program first, torch's
deliberate breaks (by_design) after every fixable finding however much they cost, then cost, then severity."""

from __future__ import annotations

from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.model import Cost, Finding
from tdiag.analyzer.ranking import BREAK_SAVING_FACTOR, place_whole_step, rank_key


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


def _step_share(seconds: float) -> Finding:
    """A RUN001 finding (a whole-step rule) whose movable time measured ``seconds`` in the window."""
    return _finding("RUN001", 9, cost=Cost(total_s=seconds, basis="measured"), impact=0.5,
                    evidence=RuntimeShareEvidence(seconds=seconds, share=0.5, steps=10))


def test_the_whole_step_finding_ranks_after_a_break_it_does_not_outweigh_by_the_saving_factor():
    broken = _finding("BRK001", 5, cost=Cost(total_s=0.010, basis="measured"))
    step = _step_share(BREAK_SAVING_FACTOR * 0.010 * 0.9)  # more than the break's cost, less than its lowest saving
    note = _finding("CMP002", 7, severity="info", cost=Cost(total_s=3.0, basis="compile"))
    findings = [step, note, broken]
    place_whole_step(findings)
    assert step.evidence.ranked_after == ["BRK001 at a.py:5"]
    assert sorted(findings, key=rank_key) == [broken, note, step]  # yielded: after every fixable finding


def test_the_whole_step_finding_outranks_a_break_it_outweighs_but_never_a_recompile():
    broken = _finding("BRK001", 5, cost=Cost(total_s=0.010, basis="measured"))
    step = _step_share(BREAK_SAVING_FACTOR * 0.010 * 1.5)
    place_whole_step([step, broken])
    assert step.evidence.ranked_after == []
    assert sorted([broken, step], key=rank_key) == [step, broken]
    # a recompile's compile seconds do not compare with time per step, however small; nor does a deliberate break
    recompile = _finding("RCP001", 4, cost=Cost(total_s=0.001, basis="compile"))
    deliberate = _finding("BRK005", 6, by_design=True, severity="info", cost=Cost(total_s=0.001, basis="measured"))
    findings = [step, broken, recompile, deliberate]
    place_whole_step(findings)
    assert step.evidence.ranked_after == ["RCP001 at a.py:4"]
    assert sorted(findings, key=rank_key) == [broken, recompile, step, deliberate]


def test_results_that_differ_from_eager_rank_before_any_cost_after_a_crash():
    """Blind batch 8's posterior smoothing: "1.9x slower than eager" (RUN003, measured) ranked above "the compiled
    results differ from eager" (EGR001): a wrong result comes before any speed."""
    crash = _finding("CRS001", 1, severity="error")
    slower = _finding("RUN003", 2, cost=Cost(total_s=20.0, basis="measured"))
    stopped_compiling = _finding("RCP005", 3, severity="error", cost=Cost(total_s=5.0, basis="measured"))
    differs = _finding("EGR001", 4, severity="error")
    assert sorted([slower, stopped_compiling, differs, crash], key=rank_key) == [crash, differs, stopped_compiling,
                                                                                   slower]
