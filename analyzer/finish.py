"""The one layer that finishes a finding, so every output (the summary at the end of ``tdiag run``, lint, HTML,
TUI, notebook view, JSON) shows the same message, fix and order for it.

A rule words the message and fix; the cost model measures (analyzer/cost.py) and may leave a note on the figure
(``Cost.note``); a suggester may word a better one-line fix than the rule could (``Suggestion.fix``: the tensor the
user holds for torch's ``kwargs['input_ids']``, a library's own knob). Here the note joins the message, the
suggestion's fix replaces the rule's (``suggestions.attach_suggestions``) and the findings are ranked
(analyzer/ranking.py).

Patches are costly (libcst: ~1 G instructions on a short record), and the summary shows none. Without patches
(``patches=False``) only the findings whose fix a suggester words get their suggestion, so the summary's fix is
lint's and a record without such findings pays nothing.
"""

from __future__ import annotations

from tdiag.analyzer.fix_status import mark_unverified
from tdiag.analyzer.guard_words import user_names
from tdiag.analyzer.model import Analysis, Finding, Suggestion
from tdiag.analyzer.ranking import drop_contradictions, rank_key

# Suggesters (Rule.suggester) that word the finding's one-line fix from the user's source (Suggestion.fix).
# frame_skipped: a skipped frame's fix is its root break's patch or "compile the model, not the loop" (blind batch 5:
# the end-of-run summary printed the rule's words where lint printed these)
FIX_WORDING_SUGGESTERS = frozenset({"frame_skipped", "mark_dynamic", "mask_select", "recompile_limit"})


def stage(facts) -> None:
    """The finish stage of analyzer/stages.py."""
    finish(facts.analysis, patches=facts.patches)


def finish(analysis: Analysis, patches: bool = True) -> None:
    drop_contradictions(analysis)
    findings = analysis.findings
    for f in findings:
        if f.cost is not None and f.cost.note:
            f.message += "; " + f.cost.note
    wanted = findings if patches else [f for f in findings if fix_from_suggestion(f, analysis)]
    if wanted:
        from tdiag.analyzer.suggestions import attach_suggestions

        try:  # each suggester's fault costs only its patches (suggestions.dispatch); this is the machinery
            attach_suggestions(wanted, analysis)
        except Exception as exc:
            from tdiag.analyzer.faults import record_fault

            record_fault(analysis, "analysis", "the suggestions", exc)
    for f in findings:
        in_user_names(f)
    mark_unverified(findings)  # a fix line is a candidate until `tdiag fix --verify` proves it (fix_status.py)
    findings.sort(key=rank_key)


def in_user_names(f: Finding) -> None:
    """The boundary every output's words pass: a rule's message, a fix and a suggestion's words are built in many
    places from torch's text (a guard, torch's hint quoted as torch's), so Dynamo's own names are put as the user
    holds them, or said in words, here once (guard_words.user_names) rather than trusted to each template (the
    rules word a nameless object with its frame where they know it). A patch is code against the user's file and is
    left as it is."""
    f.message = user_names(f.message)
    f.fix = user_names(f.fix)
    if f.suggestion is not None:
        _suggestion_in_user_names(f.suggestion)


def _suggestion_in_user_names(s: Suggestion) -> None:
    s.title = user_names(s.title)
    s.why = user_names(s.why)
    s.patch_note = user_names(s.patch_note) if s.patch_note else s.patch_note
    s.fix = user_names(s.fix) if s.fix else s.fix
    s.alternatives = [user_names(a) for a in s.alternatives]
    for candidate in s.candidates:
        _suggestion_in_user_names(candidate)


def fix_from_suggestion(f: Finding, analysis: Analysis) -> bool:
    """Whether a suggestion may word this finding's fix: a cause inside a library (its fix is applied from the
    user's line), a rule whose suggester names what the user's code holds, or a break compiling the model may
    answer (suggestions/compile_module.py: it words the fix where the break's own kind builds no patch)."""
    from tdiag.analyzer.library_causes import cause_frame, match
    from tdiag.analyzer.suggestions.compile_module import may_apply
    from tdiag.analyzer.rules import BREAK_FAMILIES, get_rule

    if match(f) is not None or (f.family in BREAK_FAMILIES and cause_frame(f) is not None):
        return True

    rule = get_rule(f.code)
    return (rule is not None and rule.suggester in FIX_WORDING_SUGGESTERS) or may_apply(f, analysis)
