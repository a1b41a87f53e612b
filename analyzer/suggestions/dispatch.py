"""The patch kind a rule names (``Rule.suggester``, resolved through ``kinds.PATCH_KINDS``), and attaching
suggestions to findings."""

from __future__ import annotations

from tdiag.analyzer.faults import record_fault
from tdiag.analyzer.model import Analysis, Finding, Suggestion
from tdiag.analyzer.rules import get_rule
from tdiag.analyzer.suggestions import library_fix
from tdiag.analyzer.suggestions.helpers import in_scope
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.kinds import patch_kind, resolve


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """The suggestion for one finding. Never raises: when a patch cannot be built the note says why."""
    library = _library_suggestion(finding, ctx)
    built = _catalogue_patch(finding, ctx) if library is not None and library.patch is None else None
    if built is not None:
        return built
    if library is not None:
        return library
    return _or_compile_the_model(finding, ctx, rule_suggestion(finding, ctx))


def _or_compile_the_model(finding: Finding, ctx: SuggestionContext, own: Suggestion) -> Suggestion:
    """A function compiled whole around a model and broken by its own code, where the break's own kind builds no
    patch (a backward the optimizer's update follows in the same function): compiling the model instead, where that
    patch can be written (compile_module.py); else the kind's own suggestion."""
    from tdiag.analyzer.suggestions import compile_module

    if own.patch is not None:
        return own
    try:
        model = compile_module.suggest(finding, ctx)
    except Exception as bug:
        record_fault(ctx.analysis, "suggester", "compile_module", bug)
        return own
    return model if model is not None and model.patch is not None else own


def _library_suggestion(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """The cause is inside a library: a fix the user applies from their own code (None when it is not)."""
    try:
        return library_fix.suggest(finding, ctx)
    except Exception as bug:  # a suggester's fault costs only its own patch, and every output says so
        record_fault(ctx.analysis, "suggester", "library_fix", bug)
        return None


def rule_suggestion(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.suggestions import generic

    rule = get_rule(finding.code)
    name = (rule.suggester if rule is not None else None) or "generic"
    try:
        kind = patch_kind(None if name == "generic" else name)  # imported on first use: no syntax trees before
        try:
            suggestion = resolve(kind.suggest)(finding, ctx)
            return suggestion if suggestion.patch is not None else _catalogued(finding, ctx, suggestion, None)
        except NoPatch as why_not:
            fallback = resolve(kind.fallback)(finding, ctx) if kind.fallback else _generic(finding, ctx)
            return fallback if fallback.patch is not None else _catalogued(finding, ctx, fallback, why_not)
    except Exception as bug:  # a suggester's fault costs only its own patches, and every output says which failed
        record_fault(ctx.analysis, "suggester", name, bug)
        note = f"no patch: suggester {name} failed ({type(bug).__name__}: {bug})"
        try:
            fallback = generic.suggest(finding, ctx)
        except Exception:  # the generic words failed too (a damaged rule doc): the finding's own fix line stands
            fallback = Suggestion(title=finding.fix or finding.message)
        fallback.patch, fallback.patch_note = None, note
        return fallback


def _catalogued(finding: Finding, ctx: SuggestionContext, words: Suggestion, why_not: NoPatch | None) -> Suggestion:
    """The catalogue's candidate patch for the finding's break type where its rule's kind built none; else the
    kind's words, with why no patch was built."""
    from tdiag.analyzer.suggestions import catalogue_candidates

    try:
        return catalogue_candidates.suggest(finding, ctx)
    except NoPatch:
        if why_not is not None and not words.patch_note:
            words.patch_note = str(why_not)
        return words


def _catalogue_patch(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """The catalogue's patch for a break whose cause sits in a library the user's line reached (``copy.deepcopy``
    in the stdlib): the library's words carry no patch, but the entry's builder may rewrite the user's own line.
    None where no candidate builds."""
    from tdiag.analyzer.suggestions import catalogue_candidates

    if finding.family != "BRK":
        return None
    try:
        return catalogue_candidates.suggest(finding, ctx)
    except NoPatch:
        return None
    except Exception as bug:  # a builder's fault costs only its own patch
        record_fault(ctx.analysis, "suggester", "catalogue", bug)
        return None


def _generic(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """The rule's generic words for a finding its own kind could not patch. A fault here is the generic words'
    own (the kind that fell back to them did its part), so it is recorded under "generic"."""
    from tdiag.analyzer.suggestions import generic

    try:
        return generic.suggest(finding, ctx)
    except Exception as bug:
        record_fault(ctx.analysis, "suggester", "generic", bug)
        return Suggestion(title=finding.fix or finding.message, patch_note=f"no patch: suggester generic failed ({type(bug).__name__}: {bug})")


def attach_suggestions(findings: list[Finding], analysis: Analysis) -> None:
    """Each finding's suggestion, and the one-line fix it words (``Suggestion.fix``) in place of the rule's: the one
    place a fix is rewritten (analyzer/finish.py calls it for every output alike)."""
    ctx = SuggestionContext(analysis)
    for finding in findings:
        if finding.suggestion is None:
            library = _library_suggestion(finding, ctx)
            built = _catalogue_patch(finding, ctx) if library is not None and library.patch is None else None
            if built is not None:  # the user's own line rewritten: the catalogue's patch, not the library's words
                library = None
            if library is not None and library.fix is None:
                library.fix = library_fix.fix_line(finding, library)  # the rule's own line may name code the user cannot edit
            finding.suggestion = library or built or _or_compile_the_model(finding, ctx, rule_suggestion(finding, ctx))
            _setting_the_fix_names(finding, ctx)
            # a rule's "nothing to fix" (by design: a bounded recompile) is not reworded by its kind's suggester
            if finding.suggestion.fix and not (finding.by_design and library is None):
                finding.fix = finding.suggestion.fix
            if finding.by_design and library is None and finding.suggestion.patch is not None:
                # nothing to fix (a bounded or settled recompile): its kind's patch would change what needs no
                # change, and `tdiag fix` would offer it (blind batch 5: mark_dynamic on a settled recompile)
                finding.suggestion.patch, finding.suggestion.candidates = None, []
                finding.suggestion.patch_note = "no patch: nothing to fix (torch's expected behaviour)"
            # a fix names only what exists where it is written: a name the user's file lacks becomes a placeholder
            source = analysis.sources.get(finding.path)
            finding.fix = in_scope.with_placeholders(finding.fix, source)
            finding.suggestion.title = in_scope.with_placeholders(finding.suggestion.title, source)


def _setting_the_fix_names(finding: Finding, ctx: SuggestionContext) -> None:
    """A break's fix line that is a torch setting (the catalogue's torch-setting candidate, torch's own hint: `allow_rnn
    = True`) and no patch from its kind: the setting written after the file's imports, so `tdiag fix --verify` can
    prove or refuse the very line the finding shows."""
    from tdiag.analyzer.suggestions import generic

    suggestion = finding.suggestion
    line = suggestion.fix or finding.fix or ""
    if suggestion.patch is not None or finding.family != "BRK" or finding.by_design:
        return
    if not line.startswith("torch's hint: ") or "failed" in (suggestion.patch_note or ""):
        return  # only a fix line that is the setting (the catalogue's first candidate), never an "or set ..." aside
    try:
        generic.with_hinted_setting(suggestion, finding, ctx, [line])
    except Exception as bug:  # a patch that cannot be built costs only itself
        record_fault(ctx.analysis, "suggester", "hinted_setting", bug)
