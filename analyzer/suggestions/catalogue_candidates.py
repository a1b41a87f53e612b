"""A finding's catalogue candidates as patches. Where a break's rule builds no patch of its own kind, the candidates
of the catalogue entry for the break's type (catalogue/breaks.toml, keyed on torch's GB id) that name a ``builder``
are tried in the entry's order; the first that builds is the patch, and the finding's fix line is that candidate's
words, so the line and the patch `tdiag fix --verify` proves are one answer."""

from __future__ import annotations

import re

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.break_entry import break_entry, line_code
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.kinds import patch_kind, resolve


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    """The first catalogue candidate with a builder that builds; NoPatch with each builder's reason when none does
    (or when the entry names no builder)."""
    from tdiag.analyzer import catalogue

    entry = break_entry(finding, ctx) if finding.family == "BRK" else None
    if entry is None:
        raise NoPatch("the fix catalogue has no entry for this break type")
    refusals = []
    for position, candidate in enumerate(entry.candidates):
        if candidate.builder is None:
            continue
        try:
            suggestion = resolve(patch_kind(candidate.builder).suggest)(finding, ctx)
        except NoPatch as why_not:
            refusals.append(str(why_not))
            continue
        # the line and the patch are one answer: the first candidate's words are the finding's fix line already
        # where its rule reads the catalogue (kept as the rule rendered them, with fields only it knows); a rule
        # with words of its own (BRK003's "keep it a tensor") and a later candidate get the candidate's words
        if position == 0 and (finding.fix or "").startswith(_leading_words(candidate.words)):
            suggestion.fix = finding.fix
        else:
            suggestion.fix = catalogue.render_candidate(candidate, "breaks", call=line_code(finding, ctx),
                                                        function=finding.function or "function")
        suggestion.why = suggestion.why or entry.why
        return suggestion
    raise NoPatch("; ".join(refusals) or "no candidate of the catalogue's entry can be written as a patch")


def _leading_words(words: str) -> str:
    """A candidate's words up to its first template field: what every rendering of it starts with."""
    return re.split(r"\{[{%]", words, maxsplit=1)[0].strip()
