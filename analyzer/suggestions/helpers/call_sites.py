"""Finding the call into a compiled function on a user's line, and the argument that feeds a given parameter."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted


def compiled_names(tree: SourceTree) -> set[str]:
    """Names that call compiled code: ``x = torch.compile(...)`` targets and ``@torch.compile`` functions."""
    names: set[str] = set()
    for assign in tree.nodes(cst.Assign):
        if isinstance(assign.value, cst.Call) and tree.qualified(assign.value.func) == "torch.compile":
            for target in assign.targets:
                if isinstance(target.target, cst.Name):
                    names.add(target.target.value)
                elif isinstance(target.target, cst.Attribute):
                    names.add(target.target.attr.value)
    for func in tree.nodes(cst.FunctionDef):
        for decorator in func.decorators:
            expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            if tree.qualified(expr) == "torch.compile":
                names.add(func.name.value)
    return names


def callee_name(call: cst.Call) -> str | None:
    if isinstance(call.func, cst.Name):
        return call.func.value
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def compiled_call_on_line(tree: SourceTree, line: int, frame_name: str | None) -> cst.Call:
    """The one call on ``line`` into a compiled function; NoPatch when there is none or it is ambiguous."""
    targets = compiled_names(tree) | ({frame_name} if frame_name else set())
    calls = [c for c in tree.nodes_on_line(cst.Call, line) if callee_name(c) in targets]
    if len(calls) != 1:
        what = "no call into a compiled function" if not calls else "several calls into compiled functions"
        raise NoPatch(f"{what} on line {line}")
    return calls[0]


def calls_to(tree: SourceTree, function_name: str) -> list[cst.Call]:
    """Every plain ``function_name(...)`` call in the file."""
    return [c for c in tree.nodes(cst.Call) if isinstance(c.func, cst.Name) and c.func.value == function_name]


def frame_params(ctx: SuggestionContext, frame_path: str | None, frame_name: str | None, frame_line: int | None) -> list[str] | None:
    """The recompiled function's parameters as a caller fills them; None when its source is not in the record.

    NoPatch when the source is there but no function is defined on that line: the frame is then one of Dynamo's
    resume functions (the code after a graph break), whose inputs are not the caller's arguments."""
    if not frame_path or frame_path not in ctx.analysis.sources or not frame_name or not frame_line:
        return None
    tree = ctx.tree(frame_path)
    func = tree.function_def(frame_name, frame_line)
    if func is None:
        raise NoPatch(
            f"the recompiled code starts at {frame_path}:{frame_line}, after a graph break in {frame_name}: "
            "its inputs are Dynamo's, not the caller's; fix the graph break first"
        )
    return tree.params(func)


def argument_for(call: cst.Call, param: str, params: list[str] | None) -> cst.Arg:
    """The argument of ``call`` that binds ``param``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg
    positional = []
    for arg in call.args:
        if arg.keyword is not None:
            break
        if arg.star:
            raise NoPatch("the call passes *args, so the argument for the parameter is not visible")
        positional.append(arg)
    if params is None:
        if len(positional) == 1 and len(call.args) == 1:
            return positional[0]
        raise NoPatch(f"cannot tell which argument is `{param}` without the recompiled function's source")
    if param in params and params.index(param) < len(positional):
        return positional[params.index(param)]
    raise NoPatch(f"`{param}` is not passed explicitly in `{dotted(call.func) or 'the call'}(...)`")
