"""A guarded value mapped to the user's expression at the call line.

torch names a guarded value from inside the compiled function: ``L['x']``, ``kwargs['input_ids']`` (a library
``forward(self, *args, **kwargs)`` wrapper), ``args[0]``, ``batch['ids']``, ``cfg.scale``, ``xs[1]``. The user
holds the value under another name at the call: ``cmodel(input_ids=ids)`` -> ``ids``; ``model(**batch)`` ->
``batch["input_ids"]``; ``step(b)`` for a guard on ``batch['ids']`` -> ``b["ids"]``. The mapping is built from the
call's syntax tree (libcst), so the patch names the variable the user holds, never torch's name for it.
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.suggestions.helpers.call_sites import argument_for
from tdiag.analyzer.suggestions.helpers.context import NoPatch

from tdiag.lean_dataclass import lean_dataclass

_ROOT = re.compile(r"^(?:L\['(?P<local>\w+)'\]|(?P<name>[A-Za-z_]\w*))")
_STEP = re.compile(r"""^(?:\[(?P<q>['"])(?P<key>.*?)(?P=q)\]|\[(?P<index>-?\d+)\]|\.(?P<attr>[A-Za-z_]\w*))""")


@lean_dataclass(frozen=True)
class Access:
    key: str | None = None
    index: int | None = None
    attr: str | None = None


@lean_dataclass(frozen=True)
class Subject:
    """A guarded value as a root parameter name and the accesses below it."""

    root: str
    path: tuple[Access, ...]


def parse_subject(subject: str) -> Subject | None:
    """``L['kwargs']['input_ids']`` -> Subject('kwargs', (key 'input_ids',)); None for a form not understood
    (a call, a method, a global)."""
    text = subject.strip()
    m = _ROOT.match(text)
    if not m:
        return None
    root = m["local"] or m["name"]
    text = text[m.end():]
    path = []
    while text:
        step = _STEP.match(text)
        if not step:
            return None
        if step["key"] is not None:
            path.append(Access(key=step["key"]))
        elif step["index"] is not None:
            path.append(Access(index=int(step["index"])))
        else:
            path.append(Access(attr=step["attr"]))
        text = text[step.end():]
    return Subject(root, tuple(path))


def user_expression(call: cst.Call, subject: str, params: list[str] | None) -> cst.BaseExpression:
    """The expression at ``call`` that evaluates to the guarded ``subject``; NoPatch when the call does not show it."""
    parsed = parse_subject(subject)
    if parsed is None:
        raise NoPatch(f"cannot map `{subject}` to an argument of the call")
    path = list(parsed.path)
    if parsed.root == "kwargs" and path and path[0].key is not None:  # `**kwargs` of the compiled function
        base = _keyword(call, path.pop(0).key)
    elif parsed.root == "args" and path and path[0].index is not None:  # `*args`
        base = _positional(call, path.pop(0).index)
    elif parsed.root == "self":
        raise NoPatch(f"`{subject}` is state of the module, not an argument of the call")
    else:
        base = _named(call, parsed.root, params)
    for access in path:
        base = _apply(base, access)
    return base


def is_reference(expr: cst.BaseExpression) -> bool:
    """A name, or constant subscripts/attributes of one: evaluating it again yields the very object the call got."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        if isinstance(expr, cst.Subscript):
            if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
                return False
            if not isinstance(expr.slice[0].slice.value, (cst.SimpleString, cst.Integer, cst.UnaryOperation)):
                return False
        expr = expr.value
    return isinstance(expr, cst.Name)


def _named(call: cst.Call, name: str, params: list[str] | None) -> cst.BaseExpression:
    try:
        return argument_for(call, name, params).value
    except NoPatch:
        spread = _double_star(call)
        if spread is None:
            raise
        return _apply(spread, Access(key=name))


def _keyword(call: cst.Call, key: str) -> cst.BaseExpression:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == key:
            return arg.value
    spread = _double_star(call)
    if spread is not None:
        return _apply(spread, Access(key=key))
    raise NoPatch(f"the call passes no `{key}=` argument")


def _positional(call: cst.Call, index: int) -> cst.BaseExpression:
    positional = []
    for arg in call.args:
        if arg.keyword is not None or arg.star == "**":
            break
        if arg.star:
            raise NoPatch("the call passes *args, so the argument for the parameter is not visible")
        positional.append(arg)
    if not -len(positional) <= index < len(positional):
        raise NoPatch(f"the call passes no positional argument {index}")
    return positional[index].value


def _double_star(call: cst.Call) -> cst.BaseExpression | None:
    spreads = [arg.value for arg in call.args if arg.star == "**"]
    return spreads[0] if len(spreads) == 1 else None


def _apply(base: cst.BaseExpression, access: Access) -> cst.BaseExpression:
    if access.attr is not None:
        return cst.Attribute(value=base, attr=cst.Name(access.attr))
    if access.key is not None:
        index: cst.BaseExpression = cst.SimpleString(repr(access.key).replace("'", '"') if '"' not in access.key
                                                     else repr(access.key))
    elif access.index is not None and access.index < 0:
        index = cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-access.index)))
    else:
        index = cst.Integer(str(access.index))
    return cst.Subscript(value=base, slice=[cst.SubscriptElement(slice=cst.Index(value=index))])
