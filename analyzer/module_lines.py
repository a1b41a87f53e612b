"""Resolve a module path (``encoder.layers.0.mlp.2``) to the user's line that built that module, from the source
snapshots in the record.

Walks the path through the user's own code: the compiled module's class (or the call that constructed it), then per
path part the attribute assignment in the user's class (``self.fc1 = nn.Linear(...)``), the argument of a container
call (``nn.Sequential(a, b)``, ``nn.ModuleList([... for ...])``, ``nn.ModuleDict({...})``), or the return value of
a user function that builds it. Where the walk enters a library class (a transformers model, ``nn.TransformerEncoder``
internals) it stops: the line is the deepest user line on the path (for a library model, the line that constructed or
loaded it), marked as such. Read-only positions from the stdlib ``ast`` (nothing is patched; the end-of-run summary
need not load libcst).
"""

from __future__ import annotations

import ast

from tdiag.analyzer.model import SourceRef

from tdiag.lean_dataclass import lean_dataclass

CONTAINERS = ("Sequential", "ModuleList")
LOADERS = ("from_pretrained", "from_config", "_from_config")


@lean_dataclass
class Resolved:
    ref: SourceRef
    how: str  # "attribute", "argument", "constructed" (the whole path resolved); "ancestor" (a library module under it)


@lean_dataclass
class _Step:
    path: str
    node: ast.AST  # a ClassDef (inside a user class) or an expression that constructs the module
    line: int
    how: str


class SourceIndex:
    def __init__(self, sources: dict[str, str]):
        self.lines: dict[str, list[str]] = {}
        self.classes: dict[str, list[tuple[str, ast.ClassDef]]] = {}
        self.functions: dict[str, list[tuple[str, ast.FunctionDef]]] = {}
        self.calls: list[tuple[str, ast.Call]] = []
        self.assigns: dict[str, list[tuple[str, int, ast.expr]]] = {}  # variable -> (path, line, value)
        for path, text in sources.items():
            if not path.endswith(".py"):
                continue
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            self.lines[path] = text.splitlines()
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append((path, node))
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.setdefault(node.name, []).append((path, node))
                elif isinstance(node, ast.Call):
                    self.calls.append((path, node))
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    self.assigns.setdefault(node.targets[0].id, []).append((path, node.lineno, node.value))
        self._cache: dict[tuple[tuple[str, str], ...], Resolved | None] = {}

    # -- public ----------------------------------------------------------------------------------------------------
    def resolve(self, path: str, root_class: str | None, classes: dict[str, str] | None = None) -> Resolved | None:
        """The user's line that built the module at ``path`` under a compiled module of class ``root_class``."""
        key = (path, root_class or "")
        if key in self._cache:
            return self._cache[key]
        result = self._resolve(path, root_class, classes or {})
        self._cache[key] = result
        return result

    # -- walk ------------------------------------------------------------------------------------------------------
    def _resolve(self, path: str, root_class: str | None, classes: dict[str, str]) -> Resolved | None:
        best: tuple[int, _Step] | None = None
        for start in self._roots(root_class):
            depth, step = self._walk(start, [p for p in path.split(".") if p] if path else [])
            if best is None or depth > best[0]:
                best = (depth, step)
        if best is None:
            return None
        depth, step = best
        parts = len([p for p in path.split(".") if p])
        how = step.how if depth == parts else "ancestor"
        return Resolved(SourceRef(step.path, step.line, self._code(step.path, step.line)), how)

    def _roots(self, root_class: str | None) -> list[_Step]:
        """Where the compiled module was constructed (or, for a user class never constructed in the user's files, its
        class body)."""
        if not root_class:
            return []
        steps = []
        for path, call in self.calls:
            if _callee(call)[0] == root_class:
                steps.append(_Step(path, call, call.lineno, "constructed"))
        if not steps:  # a library model built through an auto class (AutoModel.from_config(...)): the loading line
            steps = [_Step(p, c, c.lineno, "constructed") for p, c in self.calls if _callee(c)[1]]
        if not steps:
            steps = [_Step(p, c, c.lineno, "constructed") for p, c in self.classes.get(root_class, [])]
        return steps

    def _walk(self, step: _Step, parts: list[str]) -> tuple[int, _Step]:
        depth = 0
        for part in parts:
            nxt = self._child(step, part, set())
            if nxt is None:
                break
            step, depth = nxt, depth + 1
        return depth, step

    def _child(self, step: _Step, part: str, seen: set[int]) -> _Step | None:
        node = step.node
        if id(node) in seen:
            return None
        seen.add(id(node))
        if isinstance(node, ast.ClassDef):
            return self._attribute(step.path, node, part, seen)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and part.isdigit():
            return _Step(step.path, node.elt, node.elt.lineno, "argument")
        if isinstance(node, (ast.List, ast.Tuple)) and part.isdigit():
            i = int(part)
            return _Step(step.path, node.elts[i], node.elts[i].lineno, "argument") if i < len(node.elts) else None
        if isinstance(node, ast.Name):
            value = self._assigned(step.path, node.id, node.lineno)
            return self._child(_Step(step.path, value, step.line, step.how), part, seen) if value is not None else None
        if not isinstance(node, ast.Call):
            return None
        name, loader = _callee(node)
        if loader:
            return None  # a library model loaded from a checkpoint: its submodules live in the library
        for path, cls in self.classes.get(name or "", []):
            found = self._attribute(path, cls, part, seen)
            if found is not None:
                return found
        if name in CONTAINERS and part.isdigit():
            return self._container_item(step.path, node, int(part), seen)
        if name == "ModuleDict" and node.args and isinstance(node.args[0], ast.Dict):
            for k, v in zip(node.args[0].keys, node.args[0].values):
                if isinstance(k, ast.Constant) and k.value == part:
                    return _Step(step.path, v, v.lineno, "argument")
        for path, fn in self.functions.get(name or "", []):
            for ret in ast.walk(fn):
                if isinstance(ret, ast.Return) and ret.value is not None:
                    found = self._child(_Step(path, ret.value, ret.lineno, step.how), part, seen)
                    if found is not None:
                        return found
        return None

    def _container_item(self, path: str, call: ast.Call, index: int, seen: set[int]) -> _Step | None:
        args = call.args
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Name)):
            return self._child(_Step(path, args[0], args[0].lineno, "argument"), str(index), seen)
        if len(args) == 1 and isinstance(args[0], ast.Starred):
            return self._child(_Step(path, args[0].value, args[0].lineno, "argument"), str(index), seen)
        if any(isinstance(a, ast.Starred) for a in args[: index + 1]) or index >= len(args):
            return None
        return _Step(path, args[index], args[index].lineno, "argument")

    def _attribute(self, path: str, cls: ast.ClassDef, part: str, seen: set[int]) -> _Step | None:
        for node in ast.walk(cls):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if (isinstance(t, ast.Attribute) and t.attr == part and isinstance(t.value, ast.Name)
                            and t.value.id == "self" and node.value is not None):
                        return _Step(path, node.value, node.lineno, "attribute")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in ("add_module", "register_module") and len(node.args) == 2
                  and isinstance(node.args[0], ast.Constant) and node.args[0].value == part):
                return _Step(path, node.args[1], node.lineno, "attribute")
        for base in cls.bases:  # an attribute the user's base class assigns
            base_name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else None
            for bpath, bcls in self.classes.get(base_name or "", []):
                if id(bcls) not in seen:
                    seen.add(id(bcls))
                    found = self._attribute(bpath, bcls, part, seen)
                    if found is not None:
                        return found
        return None

    def _assigned(self, path: str, name: str, before: int) -> ast.expr | None:
        candidates = [(line, value) for p, line, value in self.assigns.get(name, []) if p == path and line <= before]
        return max(candidates, key=lambda c: c[0])[1] if candidates else None

    def _code(self, path: str, line: int) -> str | None:
        lines = self.lines.get(path) or []
        return lines[line - 1].strip() if 0 < line <= len(lines) else None


def _callee(call: ast.Call) -> tuple[str | None, bool]:
    """(class or function name, whether it is a ``X.from_pretrained(...)``-style loader)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in LOADERS:
        inner = func.value
        name = inner.attr if isinstance(inner, ast.Attribute) else inner.id if isinstance(inner, ast.Name) else None
        return name, True
    if isinstance(func, ast.Attribute):
        return func.attr, False
    if isinstance(func, ast.Name):
        return func.id, False
    return None, False
