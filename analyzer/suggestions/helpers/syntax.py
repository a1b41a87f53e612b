"""The recorded source as a libcst tree with positions, parents and scopes, and the lookups the suggesters share."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import field

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class SourceTree:
    """One parsed file. Nodes come from ``module`` (the wrapper's copy), so ``module.deep_replace`` finds them."""

    path: str
    text: str
    module: cst.Module
    positions: dict
    parents: dict
    scopes: dict
    _torch_name: str | None = field(default=None, init=False)

    @classmethod
    def parse(cls, path: str, text: str) -> SourceTree:
        return _parse_cached(cls, path, text)

    @classmethod
    def _parse(cls, path: str, text: str) -> SourceTree:
        wrapper = MetadataWrapper(cst.parse_module(text))
        positions = wrapper.resolve(PositionProvider)
        parents = wrapper.resolve(ParentNodeProvider)
        scopes = wrapper.resolve(ScopeProvider)
        return cls(path, text, wrapper.module, positions, parents, scopes)

    # --- positions -------------------------------------------------------------------------------------------
    def start_line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def spans_line(self, node: cst.CSTNode, line: int) -> bool:
        where = self.positions.get(node)
        return where is not None and where.start.line <= line <= where.end.line

    def nodes(self, kind: type | tuple[type, ...]) -> Iterator[cst.CSTNode]:
        """Every node of ``kind``, in source order."""
        for node in self.positions:
            if isinstance(node, kind):
                yield node

    def nodes_on_line(self, kind, line: int) -> list[cst.CSTNode]:
        return [n for n in self.nodes(kind) if self.spans_line(n, line)]

    def statement_at(self, kind, line: int):
        """The statement of ``kind`` that starts on ``line`` (the one a break site points at)."""
        return next((n for n in self.nodes(kind) if self.start_line(n) == line), None)

    # --- structure -------------------------------------------------------------------------------------------
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def enclosing(self, node: cst.CSTNode, kind) -> cst.CSTNode | None:
        return next((a for a in self.ancestors(node) if isinstance(a, kind)), None)

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        return self.enclosing(node, cst.FunctionDef)

    def enclosing_statement_line(self, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The simple statement line holding ``node``, when it sits directly in a block (not in a compound header)."""
        for a in self.ancestors(node):
            if isinstance(a, cst.SimpleStatementLine):
                return a if isinstance(self.parent(a), (cst.IndentedBlock, cst.Module)) else None
            if isinstance(a, (cst.BaseCompoundStatement, cst.SimpleStatementSuite)):
                return None
        return None

    def function_def(self, name: str, line: int | None = None) -> cst.FunctionDef | None:
        """The function named ``name``; with ``line`` (torch's ``co_firstlineno``), the one defined there."""
        candidates = [f for f in self.nodes(cst.FunctionDef) if f.name.value == name]
        if line is None:
            return candidates[0] if len(candidates) == 1 else None
        for f in candidates:
            # Python reports a decorated function by its first decorator's line.
            first = min([self.start_line(d) for d in f.decorators] + [self.start_line(f)])
            if first <= line <= self.start_line(f):
                return f
        return None

    # --- names -----------------------------------------------------------------------------------------------
    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def torch_name(self) -> str | None:
        """How this file spells ``torch`` (``import torch`` or ``import torch as th``); None when not imported."""
        if self._torch_name is None:
            for imp in self.nodes(cst.Import):
                for alias in imp.names:
                    if self.code(alias.name) == "torch":
                        self._torch_name = alias.asname.name.value if alias.asname else "torch"
                        return self._torch_name
        return self._torch_name

    def imported_names(self) -> dict[str, str]:
        """Local name -> what it imports: ``{"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional"}``."""
        names: dict[str, str] = {}
        for imp in self.nodes(cst.Import):
            for alias in imp.names:
                full = self.code(alias.name)
                local = alias.asname.name.value if alias.asname else full.split(".")[0]
                names[local] = full if alias.asname else local
        for imp in self.nodes(cst.ImportFrom):
            if imp.relative or imp.module is None or isinstance(imp.names, cst.ImportStar):
                continue
            base = self.code(imp.module)
            for alias in imp.names:
                local = alias.asname.name.value if alias.asname else self.code(alias.name)
                names[local] = f"{base}.{self.code(alias.name)}"
        return names

    def qualified(self, expr: cst.BaseExpression) -> str | None:
        """``torch.nn.functional.relu`` for ``F.relu`` when ``F`` is imported; None when the root is not imported."""
        name = dotted(expr)
        if name is None:
            return None
        root, _, rest = name.partition(".")
        full = self.imported_names().get(root)
        if full is None:
            return None
        return f"{full}.{rest}" if rest else full

    def is_bound(self, name: str, at: cst.CSTNode) -> bool:
        scope = self.scopes.get(at)
        return scope is not None and name in scope

    def fresh_name(self, preferred: str, at: cst.CSTNode) -> str:
        """``preferred`` when nothing in the scope of ``at`` already uses it, else ``preferred_2``, ..."""
        candidate, n = preferred, 1
        while self.is_bound(candidate, at) or self._mentioned(candidate, at):
            n += 1
            candidate = f"{preferred}_{n}"
        return candidate

    def _mentioned(self, name: str, at: cst.CSTNode) -> bool:
        scope = self.scopes.get(at)
        if scope is None:
            return False
        return any(access.node.value == name for access in scope.accesses if isinstance(access.node, cst.Name))

    def params(self, func: cst.FunctionDef) -> list[str]:
        """Positional parameter names as a caller fills them (``self``/``cls`` of a method dropped)."""
        names = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        block = self.parent(func)
        is_method = isinstance(self.parent(block) if block is not None else None, cst.ClassDef)
        if is_method and names and names[0] in ("self", "cls"):
            names = names[1:]
        return names


def dotted(node: cst.BaseExpression) -> str | None:
    """``torch._dynamo.config`` for an attribute chain of names, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def descendants(node: cst.CSTNode, kind: type | tuple[type, ...]) -> list:
    """Every node of ``kind`` inside ``node`` (itself included), in source order; for a node that is not from a
    parsed file's tree, where ``SourceTree.nodes`` has no positions."""
    found: list = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, kind):
                found.append(n)
            return True

    node.visit(Collect())
    return found


def is_expression_statement_call(stmt: cst.CSTNode) -> cst.Call | None:
    """The call when ``stmt`` is a line holding only a call expression (``print(...)``), else None."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        inner = stmt.body[0]
        if isinstance(inner, cst.Expr) and isinstance(inner.value, cst.Call):
            return inner.value
    return None


@functools.lru_cache(maxsize=32)
def _parse_cached(cls, path: str, text: str) -> SourceTree:
    # One tree per snapshot: every finding in a file, and every re-analysis of the same record, reuses it.
    return cls._parse(path, text)
