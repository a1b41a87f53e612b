"""Whether a guard reads an item of a Python container that the guarded statement itself changes.

Dynamo compiles a list or dict that compiled code reads as constants, item by item (``G['confusion'][0][0] == 34``).
When the statement torch names as the guard's source changes that same container (``confusion[t][p] += 1``,
``stats.append(v)``), every call leaves new values behind, so the next call fails the guard and compiles again: the
container, not the value, is what the user must move out (catalogue/guards.toml, ``mutated_container``).
"""

from __future__ import annotations

import ast
import re

# methods that change a list, dict, set or deque in place
MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
                      "add", "discard", "appendleft", "extendleft", "sort", "reverse"})
# the guarded container as Dynamo names it: G['name'] / L['name'] (an attribute chain after it), then an item
_CONTAINER = re.compile(r"^(?:[LG]\['(?P<name>\w+)'\])(?P<attrs>(?:\.\w+)*)\[")


def guarded_container(subject: str | None) -> str | None:
    """``G['confusion'][0][0]`` -> ``confusion``; ``L['self'].history[2]`` -> ``self.history``; None for a guard on
    anything but an item of a named container."""
    m = _CONTAINER.match(subject or "")
    return None if m is None else m["name"] + m["attrs"]


def changes(statement: str | None, container: str) -> bool:
    """``statement`` (one line of source, a compound statement's header included) assigns to an item of
    ``container`` or calls one of its mutating methods."""
    tree = _parse(statement or "")
    if tree is None:
        return False
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        if any(isinstance(t, ast.Subscript) and _root(t) == container for t in targets):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS
                and _root(node.func.value) == container):
            return True
    return False


def _root(node: ast.expr) -> str | None:
    """The container an item expression starts from: ``confusion[t][p]`` -> ``confusion``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - an expression ast cannot write back is no container of the user's
        return None


def _parse(statement: str) -> ast.Module | None:
    text = statement.strip()
    for candidate in (text, text + " pass"):  # a header (`for ...:`, `if ...:`) parses with a body
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    return None
