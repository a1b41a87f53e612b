"""Would a name still work if it held a 0-d tensor instead of a Python number?

Yes when every read of it is an operand of arithmetic whose whole expression already involves another tensor-like
value (``x / scale``, ``h / (scale + 1.0)``): the result was a tensor before and stays one, with the same values.
No for comparisons, ``if``/``while`` tests, ``int()``/``range()``/formatting, shapes and indices, where a tensor
would either change the type that flows on or bring the graph break back.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

_ARITHMETIC = (cst.BinaryOperation, cst.UnaryOperation)
_NUMBER_LITERALS = (cst.Integer, cst.Float, cst.Imaginary)
_PYTHON_NUMBER_CALLS = frozenset({"int", "float", "bool", "round", "len", "abs", "min", "max", "range", "str", "complex"})


def reads_of(tree: SourceTree, name: str, at: cst.CSTNode) -> list[cst.Name] | None:
    """The Name nodes reading ``name`` in the scope of ``at``; None when the name is assigned more than once there
    or captured by an inner scope (where its reads cannot all be seen)."""
    scope = tree.scopes.get(at)
    if scope is None or len(scope.assignments[name]) != 1:
        return None
    reads = [access.node for access in scope.accesses[name] if isinstance(access.node, cst.Name)]
    for child in _child_scopes(tree, scope):
        if child.accesses[name] and not child.assignments[name]:
            return None
    return reads


def only_tensor_arithmetic(tree: SourceTree, name: str, reads: list[cst.Name]) -> str | None:
    """None when every read is tensor arithmetic, else why not (for the patch note)."""
    if not reads:
        return f"`{name}` is never read"
    for read in reads:
        problem = _read_problem(tree, name, read)
        if problem:
            return problem
    return None


def _read_problem(tree: SourceTree, name: str, read: cst.Name) -> str | None:
    parent = tree.parent(read)
    if not isinstance(parent, _ARITHMETIC) or isinstance(getattr(parent, "operator", None), cst.Not):
        return f"`{name}` is used outside arithmetic (line {tree.start_line(read)})"
    top = parent
    while isinstance(tree.parent(top), _ARITHMETIC):
        top = tree.parent(top)
    if not _has_tensor_operand(tree, top, name):
        return f"`{name}` is only combined with Python numbers (line {tree.start_line(read)}), so the result would change type"
    context = tree.parent(top)
    if isinstance(context, (cst.Comparison, cst.ComparisonTarget, cst.If, cst.While, cst.FormattedStringExpression)):
        return f"the arithmetic on `{name}` feeds a comparison or formatting (line {tree.start_line(read)})"
    if isinstance(context, cst.Arg):
        call = tree.parent(context)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _PYTHON_NUMBER_CALLS:
            return f"the arithmetic on `{name}` is passed to {call.func.value}() (line {tree.start_line(read)})"
    return None


def _has_tensor_operand(tree: SourceTree, expr: cst.CSTNode, name: str) -> bool:
    """Does the arithmetic ``expr`` have a leaf other than ``name`` and number literals that looks like a tensor:
    a variable, a subscript of one, or a call other than a Python-number builtin?"""
    leaves: list[cst.CSTNode] = []

    def collect(node: cst.CSTNode) -> None:
        if isinstance(node, cst.BinaryOperation):
            collect(node.left)
            collect(node.right)
        elif isinstance(node, cst.UnaryOperation):
            collect(node.expression)
        else:
            leaves.append(node)

    collect(expr)
    for leaf in leaves:
        if isinstance(leaf, _NUMBER_LITERALS) or (isinstance(leaf, cst.Name) and leaf.value == name):
            continue
        if isinstance(leaf, cst.Name) and leaf.value not in ("self", "True", "False", "None"):
            return True
        if isinstance(leaf, cst.Subscript):
            return True
        if isinstance(leaf, cst.Call) and not (isinstance(leaf.func, cst.Name) and leaf.func.value in _PYTHON_NUMBER_CALLS):
            return True
    return False


def _child_scopes(tree: SourceTree, scope) -> list:
    return [s for s in set(tree.scopes.values()) if s is not scope and getattr(s, "parent", None) is scope]
