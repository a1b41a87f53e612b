"""RCP005: the recompile limit was hit; from then on the function runs eagerly, uncompiled, on every call."""

from __future__ import annotations

import re
from collections import Counter

from tdiag.analyzer.evidence import RecompileLimitEvidence, evidence_as
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    failures = [f for f in evidence_as(finding.evidence, RecompileLimitEvidence).failures if f]
    cause = user_words(Counter(failures).most_common(1)[0][0]) if failures else "guards that kept failing"
    example, changed = f"`{cause}`", f"`{cause}` changes between calls"
    frame = finding.function or "this function"
    dominant = _dominant(failures, ctx)
    if dominant is not None:  # a global dict the program changes: every entry fails it, whatever else failed too
        from tdiag.analyzer.rules._recompiles import change_words, guard_candidate

        example = changed = change_words(dominant[1]) or example
        fix = guard_candidate(*dominant, len(failures))[1]
    else:
        static = _static_compile(finding, ctx, failures, cause)
        if static is not None:
            return static
        fix = _catalogued(failures, ctx) or _fix(frame)
    return Suggestion(
        # the guard that kept failing is the cause: its own recompile finding (RCP001-RCP006) carries the fix
        fix=fix if failures else None,
        title=f"RECOMPILE LIMIT HIT: {frame} is no longer compiled and runs eagerly on every call",
        why=(
            f"Each call brought a value the compiled graphs were not guarded for (e.g. {example}), so Dynamo "
            "compiled again until torch._dynamo.config.recompile_limit; after that it stops compiling this code and "
            "all later calls run in eager mode, silently losing every speed-up. Fix the cause below rather than "
            "raising the limit."
        ),
        alternatives=[
            f"remove the cause: {changed}; see the RCP findings at this frame for a rewrite",
            "pass values that change per call as tensors, and mark changing sizes dynamic (mark_dynamic)",
            "only if the variants are few and intended: raise torch._dynamo.config.recompile_limit",
        ],
    )


def _static_compile(finding: Finding, ctx: SuggestionContext, failures: list[str], cause: str) -> Suggestion | None:
    """The limit hit on sizes or ints under ``dynamic=False``: that setting is the cause (automatic dynamic shapes
    would make the changing value symbolic after one recompile), so dropping it is the fix and its patch."""
    from tdiag.analyzer.suggestions.helpers.compile_dynamic import without_static
    from tdiag.analyzer.suggestions.helpers.context import NoPatch

    if not failures or not all(_SIZE_GUARD.search(f) or _INT_GUARD.search(user_words(f)) for f in failures):
        return None
    try:
        _, patch = without_static(ctx, finding.function or "", finding.path, finding.line)
    except NoPatch:
        return None
    frame = finding.function or "this function"
    return Suggestion(
        fix=(f"drop dynamic=False from the torch.compile of {frame}: then `{cause}` becomes symbolic after one "
             "recompile (automatic dynamic shapes) instead of compiling once per value up to the limit"),
        title=f"Compile {frame} without dynamic=False",
        why=("dynamic=False keeps every size and int specialised, so each new value compiles again until "
             "torch._dynamo.config.recompile_limit, and the function then runs eagerly. Without it, Dynamo compiles "
             "once more with the changing value symbolic, and one graph serves every later value."),
        patch=patch,
        alternatives=["torch._dynamo.mark_dynamic on the tensor whose size changes, before the call",
                      "keep the value constant, or bucket it to a few values"],
    )


def _dominant(failures: list[str], ctx: SuggestionContext):
    """(recompile, failure) for a guard on a global dict the program changes, in a recompile whose logged guard is
    one of ``failures`` (logged or behind the one torch logged: rules/_recompiles.py's dominant_failure); None
    where none is."""
    from tdiag.analyzer.rules._recompiles import dominant_failure

    texts = set(failures)
    found = [(r, f) for r in ctx.analysis.recompiles
             if r.failures and r.failures[0].text in texts and (f := dominant_failure(r)) is not None]
    # one torch logged (it carries the statement it came from) before one read behind another guard
    return next((d for d in found if not d[1].hidden), found[0] if found else None)


def _catalogued(failures: list[str], ctx: SuggestionContext) -> str | None:
    """The catalogue's words for the guard that failed most (catalogue/guards.toml, by guard kind and what the
    guarded object is: a module's int attribute, a string, free text, values carried across a graph break, a
    container the compiled code changes, ...), from the recompile records that carry it; None where no record
    does (the words below then decide)."""
    from tdiag.analyzer.rules._recompiles import guard_candidate

    records = {f.text: (r, f) for r in ctx.analysis.recompiles for f in r.failures}
    for text, _ in Counter(failures).most_common():
        if text in records:
            r, f = records[text]
            compiled_for = [g.expected for g in _failures_of(ctx, text) if g.expected]
            return guard_candidate(r, f, len(failures), compiled_for)[1]
    return None


def _failures_of(ctx: SuggestionContext, text: str) -> list:
    """Every recorded failure of the guard ``text`` names (the values its compiles were made for)."""
    subject = text.split(" == ")[0]
    return [f for r in ctx.analysis.recompiles for f in r.failures if f.text.split(" == ")[0] == subject]


_SIZE_GUARD = re.compile(r"size mismatch at index|\.size\(\)\[\d+\] ==")
_INT_GUARD = re.compile(r"== -?\d+\s*$")


def _fix(frame: str) -> str:
    """Where no recompile record carries the guard (the catalogue's words need its kind and subject): the cause
    named by the frame's own recompile findings, never torch's guard text."""
    return f"fix what recompiles {frame} (its recompile finding names the cause and its fix), not the limit"
