"""What a suggester gets: the finding's analysis, parsed recorded sources (once per file), and patch making."""

from __future__ import annotations

from dataclasses import field

import libcst as cst
from tdiag.analyzer.model import Analysis, Suggestion
from tdiag.analyzer.suggestions.helpers.diff import make_patch
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

from tdiag.lean_dataclass import lean_dataclass


class NoPatch(Exception):
    """Raised by a patch builder when the code does not allow a safe rewrite; the message becomes ``patch_note``."""


@lean_dataclass
class SuggestionContext:
    analysis: Analysis
    _trees: dict[str, SourceTree | None] = field(default_factory=dict)

    def tree(self, path: str | None) -> SourceTree:
        """The recorded snapshot of ``path`` as a syntax tree; NoPatch when there is none or it does not parse."""
        if not path or path not in self.analysis.sources:
            raise NoPatch(f"the record holds no source for {path or 'this site'}")
        if path not in self._trees:
            try:
                self._trees[path] = SourceTree.parse(path, self.analysis.sources[path])
            except cst.ParserSyntaxError:
                self._trees[path] = None
        tree = self._trees[path]
        if tree is None:
            raise NoPatch(f"the recorded source of {path} does not parse")
        return tree


def run_device(analysis: Analysis) -> str | None:
    """"cuda" or "cpu": the device the measured window ran on, else what the run's record says: "cuda: NAME" once
    the program initialised CUDA, "cpu" on a machine without a GPU; None when it cannot tell (a GPU was there, the
    record ended before the program's exit named whether it used it)."""
    runtime = analysis.summary.runtime
    if runtime is not None and runtime.device:
        return runtime.device
    device = analysis.run.device or ""
    return "cuda" if device.startswith("cuda:") else "cpu" if device == "cpu" else None


def first_candidate(builders, refusals: list[str] | None = None) -> Suggestion:
    """The first patch the builders make, the others that build as its ``candidates`` (the order `tdiag fix --verify`
    tries them in); NoPatch with every builder's reason, after ``refusals``, when none builds."""
    found, why_not = [], list(refusals or [])
    for build in builders:
        try:
            found.append(build())
        except NoPatch as exc:
            why_not.append(str(exc))
    if not found:
        raise NoPatch("; ".join(why_not))
    first, *rest = found
    first.candidates = rest
    return first


def patch_for(tree: SourceTree, new_module: cst.Module) -> str:
    patch = make_patch(tree.path, tree.text, new_module.code)
    if patch is None:
        raise NoPatch("the rewrite changes nothing")
    return patch


def torch_alias(tree: SourceTree) -> str:
    """The name to write ``torch`` as in this file (``with_torch_import`` adds the import when there is none)."""
    return tree.torch_name() or "torch"


def with_torch_import(tree: SourceTree, module: cst.Module) -> cst.Module:
    """``module`` with ``import torch`` near the top when the recorded file does not import it."""
    if tree.torch_name() is not None:
        return module
    import_line = cst.parse_statement("import torch\n")
    body = list(module.body)
    at = 0
    # After the docstring and `from __future__` imports, which must stay first.
    while at < len(body) and (_is_docstring(body[at]) or _is_future_import(body[at])):
        at += 1
    return module.with_changes(body=[*body[:at], import_line, *body[at:]])


def replace_statement(tree: SourceTree, node: cst.CSTNode, replacement: list, removed=()) -> cst.Module:
    """The recorded module with ``node`` (a statement of a block) replaced by ``replacement`` statements."""
    block = tree.parent(node)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        raise NoPatch("the statement is not on a line of its own")
    body = []
    for statement in block.body:
        if statement is node:
            body.extend(replacement)
        elif not any(statement is r for r in removed):
            body.append(statement)
    if not body and isinstance(block, cst.IndentedBlock):
        body = [cst.SimpleStatementLine(body=[cst.Pass()])]
    if block is tree.module:
        return tree.module.with_changes(body=body)
    return tree.module.deep_replace(block, block.with_changes(body=body))


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_future_import(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.ImportFrom)
        and isinstance(stmt.body[0].module, cst.Name)
        and stmt.body[0].module.value == "__future__"
    )


def replace_nodes(module: cst.Module, replacements: dict[cst.CSTNode, cst.CSTNode]) -> cst.Module:
    """``module`` with each key node (by identity) replaced by its value, in one pass."""
    by_id = {id(old): new for old, new in replacements.items()}

    class Replacer(cst.CSTTransformer):
        def on_leave(self, original_node, updated_node):
            return by_id.get(id(original_node), updated_node)

    return module.visit(Replacer())


def after_imports(tree: SourceTree, statements: list) -> str:
    """The patch that puts ``statements`` after the file's last top-level import (and imports torch if needed)."""
    return patch_for(tree, with_torch_import(tree, insert_after_imports(tree.module, statements)))


def insert_after_imports(module: cst.Module, statements: list) -> cst.Module:
    """``module`` with ``statements`` after its last top-level import."""
    body = list(module.body)
    last = max((i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
                and isinstance(s.body[0], (cst.Import, cst.ImportFrom))), default=-1)
    return module.with_changes(body=[*body[:last + 1], *statements, *body[last + 1:]])
