"""Any rule without its own suggester (BRK099, RCP006, LOW*, CMP*, ...): the rule's fix line and its rationale."""

from __future__ import annotations

import re

from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.rules import get_rule


def suggest(finding: Finding, ctx=None) -> Suggestion:
    return Suggestion(title=_title(finding.fix or finding.message), why=rule_section(finding.code, "Why is this bad?"),
                      alternatives=list(evidence_as(finding.evidence, BreakEvidence).hints))


def rule_section(code: str, heading: str) -> str:
    """One ``## heading`` section of the rule's docstring (the same text as ``tdiag rule CODE``)."""
    rule = get_rule(code)
    if rule is None or not rule.doc:
        return ""
    match = re.search(rf"^## {re.escape(heading)}\s*\n(.*?)(?=^## |\Z)", rule.doc, re.S | re.M)
    return " ".join(match.group(1).split()) if match else ""


def _title(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else "See the rule description"
