"""Compare two Analyses (a stored baseline and a new run): which findings were fixed, which are new, how counts moved.

Findings match on (code, path, line); those left over match on (code, path, function, message), so a finding
whose line merely moved because code was added above it is "unchanged", not "fixed" plus "new".
Pure: no torch, no rendering.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from tdiag.analyzer.model import SEVERITY_RANK, Analysis, Finding

# Counts whose growth is a regression: each one more means more graphs to launch or more compiles to pay for.
REGRESSION_COUNTS = ("graphs", "graph_breaks", "recompiles")


@dataclass(frozen=True)
class CountDelta:
    base: float
    new: float

    @property
    def change(self) -> float:
        return self.new - self.base


@dataclass
class AnalysisDiff:
    fixed: list[Finding] = field(default_factory=list)
    new: list[Finding] = field(default_factory=list)
    unchanged: list[tuple[Finding, Finding]] = field(default_factory=list)  # (base, new)
    counts: dict[str, CountDelta] = field(default_factory=dict)

    def regressions(self, fail_on: str = "warning") -> list[str]:
        """Why the new run is worse than the base, one reason per line; empty when it is not."""
        threshold = SEVERITY_RANK[fail_on]
        reasons = [
            f"new {f.code} at {f.path}:{f.line}: {f.message}"
            for f in self.new
            if SEVERITY_RANK.get(f.severity, len(SEVERITY_RANK)) <= threshold
        ]
        for name in REGRESSION_COUNTS:
            delta = self.counts.get(name)
            if delta is not None and delta.change > 0:
                reasons.append(f"{name.replace('_', ' ')}: {_number(delta.base)} -> {_number(delta.new)}")
        return reasons

    def to_dict(self, fail_on: str = "warning") -> dict[str, Any]:
        return {
            "fixed": [_finding_ref(f) for f in self.fixed],
            "new": [_finding_ref(f) for f in self.new],
            "unchanged": [{**_finding_ref(n), "base_line": b.line} for b, n in self.unchanged],
            "counts": {k: {"base": d.base, "new": d.new, "change": round(d.change, 3)} for k, d in self.counts.items()},
            "regressions": self.regressions(fail_on),
        }


def diff(base: Analysis, new: Analysis) -> AnalysisDiff:
    result = AnalysisDiff(counts=count_deltas(base, new))
    base_left, new_left = list(base.findings), list(new.findings)
    for key in (_exact_key, _moved_key):
        pairs, base_left, new_left = _match(base_left, new_left, key)
        result.unchanged.extend(pairs)
    result.fixed, result.new = base_left, new_left
    return result


def count_deltas(base: Analysis, new: Analysis) -> dict[str, CountDelta]:
    b, n = base.summary, new.summary
    deltas = {
        "graphs": CountDelta(b.graphs, n.graphs),
        "graph_breaks": CountDelta(b.graph_breaks, n.graph_breaks),
        "break_sites": CountDelta(b.break_sites, n.break_sites),
        "recompiles": CountDelta(b.recompiles, n.recompiles),
        "eager_fallbacks": CountDelta(b.eager_fallbacks, n.eager_fallbacks),
        "compile_time_s": CountDelta(round(b.compile_time_s, 3), round(n.compile_time_s, 3)),
    }
    for kind in sorted(set(b.kernels_by_kind) | set(n.kernels_by_kind)):
        deltas[f"kernels.{kind}"] = CountDelta(b.kernels_by_kind.get(kind, 0), n.kernels_by_kind.get(kind, 0))
    return deltas


def _exact_key(f: Finding) -> Hashable:
    return (f.code, f.path, f.line)


def _moved_key(f: Finding) -> Hashable:
    return (f.code, f.path, f.function, f.message)


def _match(
    base: list[Finding], new: list[Finding], key: Callable[[Finding], Hashable]
) -> tuple[list[tuple[Finding, Finding]], list[Finding], list[Finding]]:
    """Pair findings with equal keys in order of appearance; return the pairs and what is left on each side."""
    waiting: dict[Hashable, list[Finding]] = defaultdict(list)
    for f in base:
        waiting[key(f)].append(f)
    pairs, unmatched_new = [], []
    for f in new:
        candidates = waiting.get(key(f))
        if candidates:
            pairs.append((candidates.pop(0), f))
        else:
            unmatched_new.append(f)
    matched_base = {id(b) for b, _ in pairs}
    return pairs, [f for f in base if id(f) not in matched_base], unmatched_new


def _finding_ref(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "severity": f.severity, "path": f.path, "line": f.line, "function": f.function, "message": f.message}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"
