"""The order of findings, the same in every output: what stopped the program first, torch's deliberate breaks
(``Finding.by_design``) after every fixable finding, then measured cost, compile seconds, and the rest by severity."""

from __future__ import annotations

from tdiag.analyzer.model import SEVERITY_RANK, Finding

STOPPED_FAMILY = "CRS"  # the program stopped: always the first finding


def is_stopped(f: Finding) -> bool:
    """The finding says what stopped the program (or a thread)."""
    return f.family == STOPPED_FAMILY


def stopped_first(f: Finding) -> int:
    """0 for what stopped the program, 1 for the rest: the leading key of every order an output uses."""
    return 0 if is_stopped(f) else 1


def first_stopped(findings) -> Finding | None:
    return next((f for f in findings if is_stopped(f)), None)


def rank_key(f: Finding) -> tuple:
    """What stopped the program, then fixable before by design, then measured cost (largest first), then compile
    seconds, then findings without a cost (by severity, then impact)."""
    cost = f.cost
    if cost is not None and cost.basis == "measured" and cost.total_s > 0:
        tier = 0
    elif cost is not None and cost.basis == "compile" and cost.total_s > 0:
        tier = 1
    else:
        tier = 2
    seconds = cost.total_s if tier < 2 and cost is not None else 0.0
    return (stopped_first(f), bool(f.by_design), tier, -seconds, SEVERITY_RANK.get(f.severity, 9), -f.impact,
            f.path, f.line, f.code)
