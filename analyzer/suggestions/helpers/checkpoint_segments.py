"""BRK005 on ``checkpoint_sequential``: the same segments, each through ``torch.utils.checkpoint.checkpoint``.

Dynamo skips ``torch.utils.checkpoint.checkpoint_sequential`` (torch/utils is in its skip list), so a compiled forward
that calls it runs eagerly; ``checkpoint`` itself it traces into the graph. The patch adds a function of the user's
(``checkpoint_segments``) that does what checkpoint_sequential does with ``checkpoint``: ``len(functions) //
segments`` layers a segment, every segment but the last checkpointed, the call's own keywords (``use_reentrant``,
``preserve_rng_state``) passed on, and calls it with the call's own arguments. Slicing assumes an ``nn.Sequential``
(checkpoint_sequential also takes a list of functions): `tdiag fix --verify` runs it, and keeps it only when the
output stays the same.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    _is_docstring,
    patch_for,
    replace_nodes,
    torch_alias,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

HELPER = '''
def {name}(functions, segments, input, **kwargs):
    """torch.utils.checkpoint.checkpoint_sequential with one checkpoint per segment: torch.compile traces
    checkpoint, and skips checkpoint_sequential (the whole forward then ran eagerly). As there, the last segment runs
    without a checkpoint."""
    size = len(functions) // segments
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = {torch}.utils.checkpoint.checkpoint(functions[start:end], input, **kwargs)
    return functions[end:](input)
'''


def build(finding: Finding, ctx: SuggestionContext) -> str:
    """The patch (unified diff) for the finding's checkpoint_sequential call; NoPatch when it is not one we can see."""
    tree = ctx.tree(finding.path)
    call = _the_call(tree, finding.line)
    if len(call.args) < 3 or any(a.keyword is not None or a.star for a in call.args[:3]):
        raise NoPatch("the checkpoint_sequential call does not pass its functions, segments and input in order")
    torch = torch_alias(tree)
    name = tree.fresh_name("checkpoint_segments", call)
    helper = cst.parse_module(HELPER.format(name=name, torch=torch), config=tree.module.config_for_parsing).body[0]
    renamed = replace_nodes(tree.module, {call.func: cst.Name(name)})
    body = list(renamed.body)
    at = _after_imports(body)
    new_body = [*body[:at], helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]), *body[at:]]
    imports = [] if _imports_checkpoint_module(tree) else [cst.parse_statement("import torch.utils.checkpoint\n")]
    if torch != "torch" and imports:
        raise NoPatch(f"torch is imported as `{torch}`: the patch would need its own import of torch.utils.checkpoint")
    new_body = [*new_body[:at], *imports, *new_body[at:]] if imports else new_body
    return patch_for(tree, renamed.with_changes(body=new_body))


def _the_call(tree: SourceTree, line: int | None) -> cst.Call:
    calls = [c for c in tree.nodes_on_line(cst.Call, line or -1)
             if (dotted(c.func) or "").rsplit(".", 1)[-1] == "checkpoint_sequential"]
    if len(calls) != 1:
        raise NoPatch("no single checkpoint_sequential call on the line")
    return calls[0]


def _after_imports(body: list[cst.CSTNode]) -> int:
    """The index after the module's docstring and its leading imports."""
    at = 0
    while at < len(body) and ((at == 0 and _is_docstring(body[at])) or _is_import(body[at])):
        at += 1
    return at


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))


def _imports_checkpoint_module(tree: SourceTree) -> bool:
    """``import torch.utils.checkpoint`` or ``from torch.utils.checkpoint import ...``: the submodule is loaded."""
    for imp in tree.nodes(cst.Import):
        if any(tree.code(alias.name).startswith("torch.utils.checkpoint") for alias in imp.names):
            return True
    return any(dotted(imp.module) == "torch.utils.checkpoint" for imp in tree.nodes(cst.ImportFrom) if imp.module)
