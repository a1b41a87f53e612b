"""What stopped the program: the findings that say so (family CRS), the first finding of every output. Apart from
ranking.py because analyzer/crash.py (which the CRS rules import) names the first of them in its headline, and
ranking reads the rules' registry."""

from __future__ import annotations

from tdiag.analyzer.model import Finding

STOPPED_FAMILY = "CRS"  # the program stopped: always the first finding


def is_stopped(f: Finding) -> bool:
    """The finding says what stopped the program (or a thread)."""
    return f.family == STOPPED_FAMILY


def stopped_first(f: Finding) -> int:
    """0 for what stopped the program, 1 for the rest: the leading key of every order an output uses."""
    return 0 if is_stopped(f) else 1


def first_stopped(findings) -> Finding | None:
    return next((f for f in findings if is_stopped(f)), None)
