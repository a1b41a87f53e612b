"""A keyword argument set on a call (``foreach=True`` on an optimizer, ``mode="reduce-overhead"`` on torch.compile),
keeping the call's layout: a call over several lines with a trailing comma keeps it."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.context import NoPatch


def keyword_value(call: cst.Call, name: str) -> cst.BaseExpression | None:
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
    return None if arg is None else arg.value


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression, replace: tuple[str, ...] = ()) -> cst.Call:
    """``call`` with ``name=value`` added after its other arguments. An existing ``name=`` whose source text is one of
    ``replace`` (``"False"``, ``"None"``) is overwritten; any other existing value is the user's choice: NoPatch."""
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            text = cst.Module(body=[]).code_for_node(arg.value)
            if text not in replace:
                raise NoPatch(f"the call already passes {name}={text}")
            args = list(call.args)
            args[i] = arg.with_changes(value=value)
            return call.with_changes(args=args)
        if arg.star == "**":
            raise NoPatch(f"the call passes **kwargs, which may hold {name}=")
    new = cst.Arg(value=value, keyword=cst.Name(name),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if last.comma is not cst.MaybeSentinel.DEFAULT:  # a trailing comma (a call over several lines): keep its layout
        between = args[-2].comma if len(args) > 1 and args[-2].comma is not cst.MaybeSentinel.DEFAULT else cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" "))
        args[-1] = last.with_changes(comma=between)
        new = new.with_changes(comma=last.comma)
    return call.with_changes(args=[*args, new])
