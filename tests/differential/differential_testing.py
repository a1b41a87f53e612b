"""The differential harness (scripts/differential_harness) for the tests of this directory."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "scripts") not in sys.path:
    sys.path.insert(0, str(REPO / "scripts"))

from differential_harness.compare import compare  # noqa: E402
from differential_harness.corpus import PROGRAMS, corpus, load  # noqa: E402
from differential_harness.execute import Outcome, run  # noqa: E402
from differential_harness.modes import MODES, PLAIN, PLAIN_TRACED  # noqa: E402

__all__ = ["MODES", "PLAIN", "PROGRAMS", "Outcome", "compare", "corpus", "differences", "load", "run"]


def differences(name: str, modes: list[str], work: Path, cache: Path, nested: bool = False) -> dict[str, list[str]]:
    """Run ``name`` plainly and under each of ``modes``; mode -> what differed from the plain run (empty: nothing)."""
    program = load(PROGRAMS / f"{name}.py")
    plain = run(program, PLAIN, nested, work, cache)
    assert not plain.timed_out and plain.counters, f"{name}: the plain run compiled nothing: {plain.stderr_tail}"
    found, traced = {}, None
    for mode in modes:
        outcome = run(program, MODES[mode], nested, work, cache)
        verdict = compare(plain, outcome)
        if verdict.needs_traced:
            traced = traced or run(program, PLAIN_TRACED, nested, work, cache)
            verdict = compare(plain, outcome, traced)
        found[mode] = verdict.differences
    return found
