"""RCP002 on an integer attribute of an nn.Module (``self.calls``) that changes between calls (pytorch#128319).

torch.compile treats integer attributes of modules as static: each new value is a guard failure and a recompile
(until the recompile limit). ``torch._dynamo.config.allow_unspec_int_on_nn_module = True`` lets automatic dynamic
make such an integer symbolic, as it does for integer arguments: one recompile when the value first changes, then
one graph for every value. The patch sets the switch once, at the top of the file that defines the module, so it is
in effect before the first compile. Keeping the counter in a tensor buffer is the alternative that never recompiles.
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.evidence import RecompileEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

SWITCH = "_dynamo.config.allow_unspec_int_on_nn_module"
WHY = (
    "Integer attributes of an nn.Module are compiled in as constants and guarded on, so a counter or step number "
    "kept on the module recompiles the forward every time it changes. With allow_unspec_int_on_nn_module, Dynamo "
    "makes the attribute a symbolic integer after its first change: one more compile, then one graph for all values."
)


def applies(finding: Finding) -> bool:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    return isinstance(finding.evidence, RecompileEvidence) and re.fullmatch(r"self(\.\w+)+", ev.subject or "") is not None


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    value = (ev.expected or "").split()
    if value and not re.fullmatch(r"-?\d+", value[0]):
        raise NoPatch(f"`{ev.subject}` holds {value[0]}, not an integer")
    tree = ctx.tree(ev.frame_path or finding.path)
    torch = torch_alias(tree)
    if _already_set(tree):
        raise NoPatch(f"the file already sets {SWITCH}")
    line = cst.parse_statement(f"{torch}.{SWITCH} = True\n")
    body = list(tree.module.body)
    at = _after_imports(body)
    module = tree.module.with_changes(body=[*body[:at], line, *body[at:]])
    patch = patch_for(tree, with_torch_import(tree, module))
    attribute = ev.subject.rsplit(".", 1)[1]  # a submodule's own name for it: self.norm.count -> count
    return Suggestion(
        title=f"Let the integer attribute `{attribute}` be dynamic (allow_unspec_int_on_nn_module)",
        why=WHY,
        patch=patch,
        alternatives=[
            f"keep `{attribute}` in a tensor (self.register_buffer('{attribute}', torch.tensor(0)), updated in "
            "place): no recompile at all",
            "move the counter out of the module and pass nothing that changes per call",
        ],
    )


def _after_imports(body: list) -> int:
    """Index after the leading docstring, ``__future__`` and import statements."""
    at = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) or (isinstance(s, cst.Expr) and i == 0) for s in stmt.body
        ):
            at = i + 1
        else:
            break
    return at


def _already_set(tree: SourceTree) -> bool:
    for target in tree.nodes(cst.AssignTarget):
        name = dotted(target.target)
        if name and name.endswith(SWITCH):
            return True
    return False
