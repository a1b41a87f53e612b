"""Any rule without its own suggester (BRK099, RCP006, LOW*, CMP*, ...): the rule's fix line and its rationale."""

from __future__ import annotations

import re

from tdiag.analyzer.evidence import BreakEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.rules import get_rule

# torch's own hint names a Dynamo setting that removes the break (`Enable tracing of dynamic shape operators with
# `torch._dynamo.config.capture_dynamic_output_shape_ops = True``): a candidate patch, which `tdiag fix --verify`
# keeps only where the break goes and the output stays
_HINTED_SETTING = re.compile(r"torch\._dynamo\.config\.(?P<name>[a-z_][a-z0-9_]*)\s*=\s*(?P<value>True|False|\d+)")


def suggest(finding: Finding, ctx=None) -> Suggestion:
    hints = list(evidence_as(finding.evidence, BreakEvidence).hints)
    suggestion = Suggestion(title=_title(finding.fix or finding.message),
                            why=rule_section(finding.code, "Why is this bad?"), alternatives=hints)
    if ctx is not None and finding.family == "BRK":
        with_hinted_setting(suggestion, finding, ctx, [finding.fix or "", *hints])
    return suggestion


def with_hinted_setting(suggestion: Suggestion, finding: Finding, ctx, texts: list[str]) -> None:
    """The setting torch's hint names, as a patch after the file's imports (when the file does not set it yet)."""
    import libcst as cst
    from tdiag.analyzer.suggestions.helpers.context import NoPatch, after_imports, torch_alias

    found = next((m for text in texts if (m := _HINTED_SETTING.search(text))), None)
    if found is None:
        return
    try:
        tree = ctx.tree(finding.path)
    except NoPatch as why_not:
        suggestion.patch_note = str(why_not)
        return
    if re.search(rf"^[^#\n]*_dynamo\.config\.{found['name']}\s*=", tree.text, re.M):  # set in code (not a comment)
        suggestion.patch_note = f"the file already sets torch._dynamo.config.{found['name']}"
        return
    line = f"{torch_alias(tree)}._dynamo.config.{found['name']} = {found['value']}\n"
    suggestion.patch = after_imports(tree, [cst.parse_statement(line)])
    suggestion.title = f"Set torch._dynamo.config.{found['name']} = {found['value']} (torch's own hint for this break)"
    suggestion.why = " ".join(filter(None, [suggestion.why, "torch's message for the break names this setting; "
                                            "`tdiag fix --verify` keeps it only where the break goes and the program "
                                            "prints the same"]))


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
