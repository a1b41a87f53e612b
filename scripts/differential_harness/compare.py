"""Compare each tdiag mode's outcome with the plain run's: counters per process, stdout, exit code."""

from __future__ import annotations

from dataclasses import dataclass

from differential_harness.execute import Outcome

COUNTER_NAMES = {
    "frames": "frames total/ok", "stats": "unique graphs / calls captured", "graph_break": "graph breaks by reason",
    "recompiles": "recompiles", "resumes": "resume functions", "nested_graph_breaks": "nested_graph_breaks setting",
}


@dataclass
class Verdict:
    identical: bool
    differences: list[str]


def compare(plain: Outcome, other: Outcome) -> Verdict:
    diffs: list[str] = []
    if other.timed_out or plain.timed_out:
        diffs.append("timed out" + (" (plain)" if plain.timed_out else ""))
    if plain.exit_code != other.exit_code:
        diffs.append(f"exit code {plain.exit_code} -> {other.exit_code}")
    if plain.stdout != other.stdout:
        diffs.append("stdout differs: " + _first_difference(plain.stdout, other.stdout))
    for role in sorted(set(plain.counters) | set(other.counters)):
        mine, theirs = plain.counters.get(role), other.counters.get(role)
        if mine is None or theirs is None:
            diffs.append(f"{role}: compiled only {'under tdiag' if mine is None else 'without tdiag'}")
            continue
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                diffs.append(f"{role}: {COUNTER_NAMES.get(key, key)} {_short(mine.get(key))} -> {_short(theirs.get(key))}")
    return Verdict(not diffs, diffs)


def _first_difference(a: str, b: str) -> str:
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x[:80]!r} -> {y[:80]!r}"
    return f"{len(la)} lines -> {len(lb)} lines"


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 160 else text[:157] + "..."


def summary(outcome: Outcome) -> str:
    """The plain run's counts, summed over its processes: frames / unique graphs / calls / breaks / recompiles."""
    frames = graphs = calls = breaks = recompiles = 0
    for c in outcome.counters.values():
        frames += c["frames"].get("total", 0)
        graphs += c["stats"].get("unique_graphs", 0)
        calls += c["stats"].get("calls_captured", 0)
        breaks += sum(c["graph_break"].values())
        recompiles += c["recompiles"]
    procs = f" ({len(outcome.counters)} procs)" if len(outcome.counters) > 1 else ""
    return f"{frames}/{graphs}/{calls}/{breaks}/{recompiles}{procs}"
