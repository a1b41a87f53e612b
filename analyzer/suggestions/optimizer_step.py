"""RUN001 (and RUN002 under CUDA graphs) when the optimizer step is a large part of the step's eager time: a patch
that makes it cheaper, chosen by the device and the backend the window measured.

Candidates, best first (``candidates``): on CUDA ``fused=True`` (no compile), then the compiled optimizer step; on a
CPU ``foreach=True``, then ``fused=True``, then, where the program compiles with Inductor, the compiled optimizer
step. Which implementation is fastest on a CPU is measured, never assumed: the fused CPU kernel measured 10x slower
than the default loop in issue 41 (Adam, 50 tensors, 2 cores) and 8x faster here (Adam, 48 tensors of 16x16 and 16,
torch 2.13, one thread: default 3.4 ms, foreach 1.5 ms, fused 0.39 ms per step), so it is never the first choice
there and verification decides. The suggestion is the first candidate the source allows, carrying the others
(``Suggestion.candidates``); ``tdiag fix --verify`` tries them in that order until one verifies and pays (a patch
that measures slower, or changes the output, is never kept).
"""

from __future__ import annotations

from tdiag.analyzer.evidence import RuntimeShareEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers import compiled_optimizer_step, optimizer_foreach, optimizer_fused
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, run_device

# of the step's eager time that can move (RUN001's parts: the program's own input preparation is not among them): below
# it the optimizer is not what to patch
MIN_OPTIMIZER_SHARE = 0.2


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    found = candidates(finding, ctx)
    if not found:
        raise NoPatch(_why_none(finding, ctx))
    return with_candidates(found)


def with_candidates(found: list[Suggestion]) -> Suggestion:
    """The first candidate, carrying the others in the order verification tries them."""
    first = found[0]
    first.candidates = found[1:]
    return first


def candidates(finding: Finding, ctx: SuggestionContext) -> list[Suggestion]:
    """Every optimizer patch the source allows, in the order to try them on this device."""
    if not optimizer_bound(finding):
        return []
    out = []
    for path in _files(finding, ctx):
        for kind in kinds(ctx):
            try:
                out.append(kind.build(ctx, path))
            except NoPatch:
                continue
        if out:
            return out
    return out


def kinds(ctx: SuggestionContext) -> list:
    """The patch kinds to try, best first, for the device and backend of the run."""
    if run_device(ctx.analysis) == "cuda":
        return [optimizer_fused, compiled_optimizer_step]
    inductor = any(g.kernels for g in ctx.analysis.graphs)  # Inductor generated code: it compiles the step too
    # foreach first on a CPU; fused after it, never first: its CPU kernel measured 10x slower than the default on one
    # machine (issue 41) and 8x faster on another (Adam, 48 small tensors, torch 2.13, 2 cores): verification decides
    return [optimizer_foreach, optimizer_fused, *([compiled_optimizer_step] if inductor else [])]


def optimizer_bound(finding: Finding) -> bool:
    parts = evidence_as(finding.evidence, RuntimeShareEvidence).parts_ms_per_step or {}
    total = sum(parts.values())
    return bool(total) and parts.get("optimizer", 0.0) >= MIN_OPTIMIZER_SHARE * total


def _files(finding: Finding, ctx: SuggestionContext) -> list[str]:
    """The finding's file first, then every other user file the record holds (the optimizer may live elsewhere)."""
    others = sorted(p for p in ctx.analysis.sources if p != finding.path and p.endswith(".py"))
    return [p for p in [finding.path, *others] if p in ctx.analysis.sources]


def _why_none(finding: Finding, ctx: SuggestionContext) -> str:
    if not optimizer_bound(finding):
        return "the optimizer is not a large part of the step's eager time: no optimizer patch"
    reasons = []
    for kind in kinds(ctx):
        try:
            kind.build(ctx, finding.path)
        except NoPatch as why:
            reasons.append(f"{kind.KIND}: {why}")
    return "; ".join(reasons) or "no optimizer patch applies"
