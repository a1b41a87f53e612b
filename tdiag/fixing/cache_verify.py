"""``tdiag fix --verify`` for a compile-cache fix (CCH findings): run twice, populate then warm, and compare.

A cache fix pays off on the *next* run, never on the run that fills the cache: each side (the program as it was,
and patched) runs once to populate a fresh ``TORCHINDUCTOR_CACHE_DIR`` of its own, then ``repeat`` times warm
against it, and the warm runs' compile seconds and cache outcomes are compared. rounds.py sends here every set of
patches whose findings are all of family CCH; the comparison is compare.py's (exit code, stdout, counts) on the
warm runs, with the cache verdict added (``judge``) and the evidence kept on ``Comparison.cache``.

The fix is kept when the warm run after it has FX graph cache hits and its warm compile seconds are below the warm
run's before by more than ``MARGIN`` of them and at least ``MIN_SAVED_S``. Each side is its fastest warm run: other
work on the machine only ever adds time to a run (timeit's rule), so the fastest of ``--repeat`` runs is the best
estimate of what the compile costs, and more runs make it better. Why that margin: a warm run still imports
Inductor, traces with Dynamo and loads the compiled graphs and kernels, and that part moves by several percent from
run to run even on a quiet machine; 10% is the margin analyzer/verdict.py puts on step times, and the 0.1 s floor
keeps a program that compiles in a fraction of a second from being judged on jitter. (Measured on the 2-core
machine shared with other work, a tiny CPU program's warm compile moved from 2.8 s to 4.9 s between two runs: one
warm run a side, ``--repeat 1``, is a weak verdict there.)

An environment switch (``TORCH_COMPILE_DEBUG=1``, ...) has no file to patch: CCH001's suggestion says which variable to
unset. ``env_fix`` is the override that would verify it (``after_env``), for a patch kind that carries environments.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.fixing.plan import PlannedPatch

MARGIN = 0.10  # of the fastest warm compile before: analyzer/verdict.py's TIME_TOLERANCE
MIN_SAVED_S = 0.1  # and at least this many seconds (jitter of a warm run's Dynamo trace and loads)
_SIDES = {"before": "the program unpatched", "after": "patched"}  # the progress line's words

# What undoes each switch CCH001 reports, as an environment override (the scratch run inherits the caller's).
ENV_FIXES = {
    "env:TORCH_COMPILE_DEBUG": ("TORCH_COMPILE_DEBUG", "0"),
    "env:TORCHINDUCTOR_FORCE_DISABLE_CACHES": ("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "0"),
    "env:TORCHINDUCTOR_FX_GRAPH_CACHE": ("TORCHINDUCTOR_FX_GRAPH_CACHE", "1"),
    "env:TORCHINDUCTOR_AUTOGRAD_CACHE": ("TORCHINDUCTOR_AUTOGRAD_CACHE", "1"),
}


@lean_dataclass
class WarmRun:
    """One side: the populating run, then the warm run(s) against the cache it filled."""

    label: str  # "before" or "after"
    populate_compile_s: float
    warm_compile_s: float  # the fastest warm run's compile seconds
    warm_cache: dict[str, Any] = field(default_factory=dict)  # summary.compile_cache of the first warm run, as JSON
    exit_codes: tuple[int, ...] = (0, 0)  # populate, then each warm run
    warm_compile_runs_s: list[float] = field(default_factory=list)  # every warm run's compile seconds

    @property
    def fx_hits(self) -> int:
        return ((self.warm_cache or {}).get("fx_graph") or {}).get("hit") or 0


@lean_dataclass
class CacheFixVerification:
    before: WarmRun
    after: WarmRun
    judged: str = ""  # how the warm compile seconds were judged (judge's words)
    pays: bool = False  # hits after, and less warm compile time beyond the margin

    @property
    def saved_s(self) -> float:
        """Compile seconds a warm start saves with the fix (positive: the fix helps)."""
        return round(self.before.warm_compile_s - self.after.warm_compile_s, 3)

    @property
    def ok(self) -> bool:
        return all(code == 0 for code in (*self.before.exit_codes, *self.after.exit_codes)) and self.after.fx_hits > 0

    def line(self) -> str:
        return (f"warm start: {self.before.warm_compile_s:.1f}s compiling before, {self.after.warm_compile_s:.1f}s "
                f"after ({self.saved_s:+.1f}s saved per run)")

    def to_dict(self) -> dict[str, Any]:
        import dataclasses

        data = dataclasses.asdict(self)
        for side in ("before", "after"):
            data[side]["fx_hits"] = getattr(self, side).fx_hits
        return {**data, "saved_s": self.saved_s, "line": self.line()}


def is_cache_fix(patches: list[PlannedPatch]) -> bool:
    """Every finding the patches answer is of family CCH: the set is verified on a warm run."""
    return bool(patches) and all(code.upper().startswith("CCH") for p in patches for code in p.codes)


def judge(result: CacheFixVerification) -> CacheFixVerification:
    """Fill ``pays`` and ``judged``: FX graph hits after, and the warm compile seconds down beyond the margin."""
    before, after = result.before.warm_compile_runs_s, result.after.warm_compile_runs_s
    needed = max(MARGIN * min(before), MIN_SAVED_S)
    spread = (f"before {_s(before)}, after {_s(after)}; fastest against fastest, a saving must exceed {needed:.2f}s "
              f"(max({MARGIN:.0%} of the warm run before, {MIN_SAVED_S}s))")
    if result.after.fx_hits <= 0:
        result.pays, result.judged = False, f"the warm run after had no FX graph cache hit ({spread})"
    elif min(before) - min(after) > needed:
        result.pays, result.judged = True, f"less warm compile time beyond the margin ({spread})"
    else:
        result.pays, result.judged = False, f"warm compile time within the margin ({spread})"
    return result


def env_fix(finding: Any) -> dict[str, str]:
    """The environment override that undoes the switch a CCH001 finding names (empty for a config line: a patch)."""
    reason = getattr(finding.evidence, "torch_reason", None) or ""
    name_value = ENV_FIXES.get(reason)
    return {name_value[0]: name_value[1]} if name_value else {}


def warm_run(scratch: Any, label: str, texts: dict[str, str], env: dict[str, str], timeout: float | None,
             repeat: int = 1, progress: Any = None) -> tuple[WarmRun, list]:
    """(the side's numbers, its warm runs as (Analysis, RunResult) pairs for compare.py)."""
    from tdiag.analyzer import build

    side = label.rsplit("-", 1)[-1]
    root = scratch.copy(label, texts)
    cache = scratch.base / f"{_safe(label)}-inductor-cache"  # fresh, this side's own (Triton's kernels included)
    env = {**env, "TORCHINDUCTOR_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(cache / "triton")}
    if progress is not None:
        progress.in_set(f"{_SIDES[side]}, populating a fresh compile cache")
    first = scratch.rerun(f"{label}-populate", root, env, timeout)
    if progress is not None:
        progress.ran()
    warm = []
    for i in range(repeat):
        if progress is not None:
            progress.in_set(f"{_SIDES[side]}, warm run {i + 1} of {repeat} against that cache")
        warm.append(scratch.rerun(f"{label}-warm", root, env, timeout, i + 1))
        if progress is not None:
            progress.ran()
    populate = build(first.record_dir, suggestions=False)
    runs = [(build(r.record_dir), r) for r in warm]
    times = [round(a.summary.compile_time_s, 3) for a, _ in runs]
    cc = runs[0][0].summary.compile_cache
    import dataclasses

    return WarmRun(side, round(populate.summary.compile_time_s, 3), min(times),
                   dataclasses.asdict(cc) if cc is not None else {},
                   (first.exit_code, *(r.exit_code for r in warm)), times), runs


def verify_cache_fix(scratch: Any, before_texts: dict[str, str], after_texts: dict[str, str],
                     before_env: dict[str, str], after_env: dict[str, str],
                     timeout: float | None = None, repeat: int = 1, label: str = "cache",
                     progress: Any = None) -> tuple[CacheFixVerification, list, list]:
    """(the judged verification, the warm runs before, the warm runs after)."""
    before, before_runs = warm_run(scratch, f"{label}-before", before_texts, before_env, timeout, repeat, progress)
    after, after_runs = warm_run(scratch, f"{label}-after", after_texts, after_env, timeout, repeat, progress)
    return judge(CacheFixVerification(before, after)), before_runs, after_runs


def _s(times: list[float]) -> str:
    return "-".join(dict.fromkeys(f"{t:.2f}" for t in (min(times), max(times)))) + f"s over {len(times)} warm run(s)"


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)


def cache_comparison(label: str, patches: list[str], result: CacheFixVerification, before: list, after: list,
                     tolerance: float) -> Any:
    """compare.py's Comparison of the warm runs (exit code, stdout, counts: what every patch must keep), with the
    cache verdict as the only thing that makes a cache fix pay."""
    from tdiag.fixing.compare import compare

    c = compare(label, patches, before, after, tolerance)
    c.cache = result
    # the table's compile time is what was judged: each side's fastest warm run
    c.before.compile_time_s, c.after.compile_time_s = result.before.warm_compile_s, result.after.warm_compile_s
    populate_before, populate_after = result.before.exit_codes[0], result.after.exit_codes[0]
    if populate_before != populate_after:
        c.problems.append(f"the populating run's exit code changed: {populate_before} -> {populate_after}")
    c.improved = [result.line(), *c.improved] if result.pays else []
    return c
