"""CCH001: a compile cache turned off by a switch. A config line in the user's file is removed (the caches are on by
default); an environment variable has no file to patch, so the suggestion says which variable to unset.

The switch is CCH001's ``evidence.torch_reason``, as analyzer/compile_cache.py's SWITCHES names it:
``inductor.fx_graph_cache``, ``functorch.enable_autograd_cache`` (a config key of ``torch._inductor.config`` or
``torch._functorch.config``) or ``env:TORCH_COMPILE_DEBUG``. The finding's line is the user's assignment
(cache_diff._setting_site). ``tdiag fix --verify`` verifies the patch on a warm run (tdiag/fixing/cache_round.py).
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.evidence import CompileCacheEvidence, evidence_as
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

CONFIG_MODULES = {"inductor": "torch._inductor.config", "functorch": "torch._functorch.config"}
WHY = ("With the cache off, every process compiles every graph from scratch: each run, each rank and each restart "
       "pays the whole compile time again though nothing changed. The caches are on by default; removing the line "
       "lets the next run load the compiled graphs instead (`tdiag fix --verify` measures it on a warm run).")
ALTERNATIVES = ["for debug output use TORCH_TRACE=/tmp/trace or TORCH_LOGS, which keep the caches on"]


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    evidence = evidence_as(finding.evidence, CompileCacheEvidence)
    setting = evidence.torch_reason or ""
    if setting.startswith("env:"):
        return _unset(setting[4:], evidence)
    family, _, key = setting.partition(".")
    if family not in CONFIG_MODULES or not key:
        raise NoPatch(f"no switch named for this finding ({setting or 'none recorded'})")
    tree = ctx.tree(finding.path)
    full = f"{CONFIG_MODULES[family]}.{key}"
    statement, small = _assignment(tree, finding.line, full)
    return Suggestion(
        title=f"Remove `{tree.code(small).strip()}`: the compile caches are on by default",
        why=WHY,
        patch=patch_for(tree, _without(tree, statement, small)),
        alternatives=ALTERNATIVES,
    )


def _unset(variable: str, evidence: CompileCacheEvidence) -> Suggestion:
    """An environment switch: advice only (the job's environment is not a file of the program)."""
    return Suggestion(
        title=f"Unset {variable} in the job's environment",
        why=f"{evidence.cause}. " + WHY.split(" The caches")[0] + ".",
        patch_note=f"{variable} is set in the environment, not in a file: nothing to patch; unset it where the job "
                   "is launched",
        alternatives=ALTERNATIVES,
    )


def _assignment(tree: SourceTree, line: int, full: str) -> tuple[cst.SimpleStatementLine, cst.BaseSmallStatement]:
    """The statement line on ``line`` and its assignment to ``full`` (``torch._inductor.config.fx_graph_cache``),
    however the file spells the module (``import torch._inductor.config as ic``, ``from torch._inductor import
    config``)."""
    for statement in tree.nodes(cst.SimpleStatementLine):
        if tree.start_line(statement) != line:
            continue
        for small in statement.body:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                [small.target] if isinstance(small, cst.AnnAssign) else []
            if any(_names(tree, t, full) for t in targets):
                if tree.enclosing_statement_line(small) is not statement:
                    raise NoPatch("the assignment is not on a line of its own")
                return statement, small
    raise NoPatch(f"no assignment to {full} on line {line} (set with config.patch(...) or by another module)")


def _names(tree: SourceTree, target: cst.BaseExpression, full: str) -> bool:
    qualified = tree.qualified(target)
    if qualified is not None:
        return qualified == full
    name = dotted(target) or ""
    return name == full  # `torch` not imported by name: only the spelled-out path is trusted


def _without(tree: SourceTree, statement: cst.SimpleStatementLine, small: cst.BaseSmallStatement) -> cst.Module:
    """The module without the assignment: the whole line when it is the line's only statement, else that statement."""
    block = tree.parent(statement)
    if len(statement.body) > 1:
        rest = [s for s in statement.body if s is not small]
        rest[-1] = rest[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return tree.module.deep_replace(statement, statement.with_changes(body=rest))
    body = list(block.body)
    at = body.index(statement)
    del body[at]
    following = body[at] if at < len(body) else None
    if following is not None and not any(ln.comment is None for ln in following.leading_lines):
        # the blank lines that set the removed line apart now set the next one apart (its comments go with it)
        blank = [ln for ln in statement.leading_lines if ln.comment is None]
        body[at] = following.with_changes(leading_lines=[*blank, *following.leading_lines])
    if not body and isinstance(block, cst.IndentedBlock):
        body = [cst.SimpleStatementLine(body=[cst.Pass()])]
    if block is tree.module:
        return tree.module.with_changes(body=body)
    return tree.module.deep_replace(block, block.with_changes(body=body))
