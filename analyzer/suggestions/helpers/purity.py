"""Is an expression free of side effects, so that evaluating it on both sides of a branch changes nothing?

Conservative by design: a call is pure only when we can tell what it is (a ``torch.*`` function or a tensor
method that is not in-place and not a host transfer). Module calls (``self.proj(x)``) are not pure: a BatchNorm
updates its running statistics, so computing both branches would update them twice.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

_PURE_BUILTINS = frozenset({"abs", "min", "max", "float", "int", "bool", "round", "len", "isinstance"})
_IMPURE_METHODS = frozenset(
    {
        "item", "tolist", "numpy", "cpu", "backward", "register_hook", "append", "extend", "insert", "pop",
        "update", "setdefault", "clear", "remove", "write", "flush", "send", "put", "record_stream",
        "debug", "info", "warning", "warn", "error", "exception", "critical", "log",
    }
)
_IMPURE_TORCH = frozenset({"manual_seed", "save", "load", "set_grad_enabled", "set_default_dtype"})


def side_effects(expr: cst.CSTNode, tree: SourceTree) -> list[str]:
    """Why evaluating ``expr`` could have an effect beyond its value (empty: none that we can see)."""
    found: list[str] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            problem = _call_problem(node, tree)
            if problem:
                found.append(problem)

        def visit_Yield(self, node) -> None:
            found.append("a yield")

        def visit_Await(self, node) -> None:
            found.append("an await")

        def visit_NamedExpr(self, node) -> None:
            found.append("an assignment expression (:=)")

        def visit_Lambda(self, node) -> bool:
            return False  # defining a lambda runs nothing

    expr.visit(Visitor())
    return found


def _call_problem(call: cst.Call, tree: SourceTree) -> str | None:
    func = call.func
    written = dotted(func)
    qualified = tree.qualified(func)
    if qualified is not None:
        if qualified.startswith("torch."):
            last = qualified.rsplit(".", 1)[-1]
            if last.endswith("_") or last in _IMPURE_TORCH or _draws_random(last) or ".distributed." in qualified:
                return f"a call to {written}()"
            return None
        return f"a call to {written}()"  # another module: we cannot tell what it does
    if isinstance(func, cst.Name):
        return None if func.value in _PURE_BUILTINS else f"a call to {func.value}()"
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        receiver = dotted(func.value)
        if receiver and receiver.split(".")[0] in ("self", "cls"):
            return f"a call to {written}() (a submodule or method may update state)"
        if (method.endswith("_") and not method.endswith("__")) or method in _IMPURE_METHODS or _draws_random(method):
            return f"a call to .{method}()"
        return None  # a tensor method
    return "a call to a computed function"


_RANDOM = frozenset({"bernoulli", "multinomial", "normal", "poisson", "rrelu", "gumbel_softmax", "randperm"})


def _draws_random(name: str) -> bool:
    # Computing both branches would draw from the generator twice and change every later random number.
    base = name.rstrip("_")
    return base.startswith("rand") or "dropout" in base or base in _RANDOM


def names_read(expr: cst.CSTNode) -> set[str]:
    """Variable names an expression reads (``a.b`` reads ``a``, not ``b``; keyword names are not reads)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

    expr.visit(Visitor())
    return found
