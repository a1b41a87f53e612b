"""WRN001: the statement a torch warning's catalogue entry names (torch_warnings.json's ``patch``), written after the
imports of the file the warning is placed in: TF32's ``torch.set_float32_matmul_precision("high")`` where Inductor
warned that float32 matmuls leave the tensor cores unused. The entry says how the patch is judged: a setting that
changes no count (``judged_by: step-time``) is measured by the step time alone, like CUDA graphs."""

from __future__ import annotations

import re

from tdiag.analyzer.evidence import TorchWarningEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions import generic
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, after_imports, torch_alias
from tdiag.analyzer.torch_warnings import catalogue


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    import libcst as cst

    entry_id = evidence_as(finding.evidence, TorchWarningEvidence).entry
    entry = next((e for e in catalogue() if e.id == entry_id), None)
    if entry is None or not entry.patch:  # words only (the lru_cache wrapper, hooks firing twice): the rule's own
        return generic.suggest(finding, ctx)
    tree = ctx.tree(finding.path)
    if re.search(rf"^[^#\n]*(?:{entry.patch['already']})", tree.text, re.M):  # set in code, not in a comment
        raise NoPatch("the file already sets it")
    torch = torch_alias(tree)
    return Suggestion(
        title=entry.patch["title"].format(torch=torch),
        why=entry.patch["why"],
        patch=after_imports(tree, [cst.parse_statement(entry.patch["statement"].format(torch=torch) + "\n")]),
        step_time=entry.patch.get("judged_by") == "step-time",
    )
