"""Compare two Analyses (a stored baseline and a new run): which findings were fixed, which are new, how counts moved.

Findings match on (code, path, line); those left over match on (code, path, function, message), so a finding
whose line merely moved because code was added above it is "unchanged", not "fixed" plus "new".
Measured cost (issue 11): each finding present in both runs carries its cost before and after (``CostDelta``), and
the summary's measured window becomes time per step before/after, split like the window (``RuntimeDelta``). Timing
deltas are reported, never regressions: a measured window is noisy and machine-dependent. So are the findings of
``TIMING_FAMILIES`` (a measured share over a threshold): listed as new or fixed, never a regression.
A record that cannot support an all-clear (interrupted, cut short, unreadable lines, an incomplete capture or
analysis: ``capture_health.is_incomplete``) cannot say a finding went away: a finding absent from it is "unknown",
never "fixed" (and one absent from such a base is "unknown", never "new"); `tdiag diff` exits 2 on it.
Pure: no torch, no rendering.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import field
from typing import Any

from tdiag.analyzer.model import SEVERITY_RANK, Analysis, Cost, Finding, RuntimeSummary
from tdiag.analyzer.rules import TIMING_FAMILIES
from tdiag.analyzer.verdict import count_changes

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class CountDelta:
    base: float
    new: float

    @property
    def change(self) -> float:
        return self.new - self.base


@lean_dataclass(frozen=True)
class CostDelta:
    """One finding's cost in both runs; ``change`` only when both were measured the same way (ms/step or seconds)."""

    base: Cost | None
    new: Cost | None

    @property
    def unit(self) -> str | None:
        bases = {c.basis for c in (self.base, self.new) if c is not None and c.basis != "none"}
        if bases == {"measured"} and all(_per_step(c) is not None for c in (self.base, self.new)):
            return "ms/step"
        return "s compile" if bases == {"compile"} and self.base and self.new else None

    @property
    def change(self) -> float | None:
        if self.unit == "ms/step":
            return round(_per_step(self.new) - _per_step(self.base), 4)
        if self.unit == "s compile":
            return round(self.new.total_s - self.base.total_s, 6)
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"base": _cost_dict(self.base), "new": _cost_dict(self.new), "unit": self.unit, "change": self.change}


# The measured window's parts, per step: (name, RuntimeSummary attribute).
RUNTIME_PARTS = (
    ("step", "window_s"),
    ("compiled", "compiled_s"),
    ("eager", "eager_s"),
    ("guards", "guard_s"),
    ("compile", "compile_s"),
)


@lean_dataclass(frozen=True)
class RuntimeDelta:
    """Time per step (ms) in each run's measured window, split like the window; None where a run was not measured."""

    base: dict[str, float] | None
    new: dict[str, float] | None
    base_reason: str | None = None  # why the base was not measured
    new_reason: str | None = None

    def change(self, part: str = "step") -> float | None:
        if self.base is None or self.new is None:
            return None
        return round(self.new[part] - self.base[part], 4)

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": "ms/step",
            "base": self.base,
            "new": self.new,
            "change": {name: self.change(name) for name, _ in RUNTIME_PARTS} if self.base and self.new else None,
            "base_reason": self.base_reason,
            "new_reason": self.new_reason,
        }


@lean_dataclass
class AnalysisDiff:
    fixed: list[Finding] = field(default_factory=list)
    new: list[Finding] = field(default_factory=list)
    unchanged: list[tuple[Finding, Finding]] = field(default_factory=list)  # (base, new)
    counts: dict[str, CountDelta] = field(default_factory=dict)
    runtime: RuntimeDelta | None = None  # None when neither record has runtime data
    cache: list[Any] = field(default_factory=list)  # analyzer/cache_diff.CacheMissCause: why NEW missed a cache
    # findings present on one side only, where the other record cannot support an all-clear: (finding, which side
    # it is absent from: "base" or "new")
    unknown: list[tuple[Finding, str]] = field(default_factory=list)

    def cost_delta(self, base: Finding, new: Finding) -> CostDelta | None:
        """The pair's cost before/after; None when neither run gave it a cost."""
        if _has_cost(base.cost) or _has_cost(new.cost):
            return CostDelta(base.cost, new.cost)
        return None

    def regressions(self, fail_on: str = "warning") -> list[str]:
        """Why the new run is worse than the base, one reason per line; empty when it is not."""
        threshold = SEVERITY_RANK[fail_on]
        reasons = [
            f"new {f.code} at {f.path}:{f.line}: {f.message}"
            for f in self.new
            if SEVERITY_RANK.get(f.severity, len(SEVERITY_RANK)) <= threshold and f.family not in TIMING_FAMILIES
        ]
        # a count that grew is worse by analyzer/verdict.py's definition, the one `tdiag fix` judges by too
        before, after = {k: d.base for k, d in self.counts.items()}, {k: d.new for k, d in self.counts.items()}
        reasons += [f"{c.name.replace('_', ' ')}: {_number(c.before)} -> {_number(c.after)}"
                    for c in count_changes(before, after) if c.worse]
        return reasons

    def to_dict(self, fail_on: str = "warning") -> dict[str, Any]:
        out = {
            "fixed": [_finding_ref(f) for f in self.fixed],
            "new": [_finding_ref(f) for f in self.new],
            "unchanged": [{**_finding_ref(n), "base_line": b.line, **self._cost_entry(b, n)} for b, n in self.unchanged],
            "counts": {k: {"base": d.base, "new": d.new, "change": round(d.change, 3)} for k, d in self.counts.items()},
            "regressions": self.regressions(fail_on),
        }
        if self.unknown:  # only then: a diff of two complete records keeps its documented shape
            out["unknown"] = [{**_finding_ref(f), "absent_from": side} for f, side in self.unknown]
        if self.runtime is not None:
            out["runtime"] = self.runtime.to_dict()
        out["compile_cache"] = [dataclasses.asdict(c) for c in self.cache]
        return out

    def _cost_entry(self, base: Finding, new: Finding) -> dict[str, Any]:
        delta = self.cost_delta(base, new)
        return {"cost": delta.to_dict()} if delta is not None else {}


def diff(base: Analysis, new: Analysis) -> AnalysisDiff:
    result = AnalysisDiff(counts=count_deltas(base, new), runtime=runtime_delta(base.summary.runtime, new.summary.runtime))
    base_left, new_left = list(base.findings), list(new.findings)
    for key in (_exact_key, _moved_key):
        pairs, base_left, new_left = _match(base_left, new_left, key)
        result.unchanged.extend(pairs)
    result.fixed, result.new = base_left, new_left
    from tdiag.analyzer.cache_diff import explain_misses

    result.cache = explain_misses(base, new)
    from tdiag.analyzer.capture_health import is_incomplete

    if is_incomplete(new.run):  # gone from a record that cannot say so: unknown, not fixed
        result.unknown += [(f, "new") for f in result.fixed]
        result.fixed = []
    if is_incomplete(base.run):
        result.unknown += [(f, "base") for f in result.new]
        result.new = []
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
    for cache in ("fx_graph", "aot_autograd"):  # only where both runs recorded cache events: never "0 misses"
        before, after = (getattr(s.compile_cache, cache, None) if s.compile_cache else None for s in (b, n))
        if before is not None and after is not None:
            for state in ("hit", "miss", "bypass"):
                deltas[f"cache.{cache}.{state}"] = CountDelta(getattr(before, state), getattr(after, state))
    for kind in sorted(set(b.kernels_by_kind) | set(n.kernels_by_kind)):
        deltas[f"kernels.{kind}"] = CountDelta(b.kernels_by_kind.get(kind, 0), n.kernels_by_kind.get(kind, 0))
    return deltas


def runtime_delta(base: RuntimeSummary | None, new: RuntimeSummary | None) -> RuntimeDelta | None:
    if base is None and new is None:
        return None
    return RuntimeDelta(_per_step_parts(base), _per_step_parts(new), _not_measured(base), _not_measured(new))


def _per_step_parts(r: RuntimeSummary | None) -> dict[str, float] | None:
    if r is None or r.status != "measured" or not r.steps:
        return None
    return {name: round(getattr(r, attr) / r.steps * 1e3, 4) for name, attr in RUNTIME_PARTS}


def _not_measured(r: RuntimeSummary | None) -> str | None:
    if r is None:
        return "no runtime data in the record"
    if r.status != "measured":
        return r.reason or "not measured"
    return None if r.steps else "no steps measured"


def _has_cost(cost: Cost | None) -> bool:
    return cost is not None and cost.basis != "none"


def _per_step(cost: Cost | None) -> float | None:
    return cost.per_call_ms if cost is not None and cost.basis == "measured" else None


def _cost_dict(cost: Cost | None) -> dict[str, Any] | None:
    return None if cost is None else {"total_s": cost.total_s, "per_call_ms": cost.per_call_ms, "share": cost.share, "basis": cost.basis}


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
    ref = {"code": f.code, "severity": f.severity, "path": f.path, "line": f.line, "function": f.function, "message": f.message}
    if _has_cost(f.cost):
        ref["cost"] = _cost_dict(f.cost)
    return ref


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"
