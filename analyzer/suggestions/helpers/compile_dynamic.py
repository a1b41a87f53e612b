"""RCP002 / DYN001 on a Python int the function needs as a number (a size, a reshape, an ``if``): ``dynamic=True`` on
the torch.compile that compiles the recompiling function.

A 0-d tensor (scalar_arg's patch) would not work there: a shape needs an int, and an ``if`` on a tensor breaks the
graph. With ``dynamic=True`` Dynamo makes int arguments symbolic from the first compile (a guard on ``n > 3`` in
place of ``n == 2``), so the new values reuse the graph. Checked on torch 2.13: an int used in ``x.repeat(n, 1)``
compiles twice by default and once with ``dynamic=True``; an int used in ``range(n)`` still compiles once per
value (the loop is unrolled, so Dynamo specialises it), so ``range`` gets no patch. Floats stay specialised under
``dynamic=True`` (``specialize_float``), so only ints get it.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, descendants

WHY = (
    "Dynamo guards on the value of a Python int argument, so each new value compiles again (automatic dynamic "
    "makes it symbolic only after the first change). {use_why} With dynamic=True Dynamo treats ints and sizes as "
    "symbolic from the first compile and one graph serves the values. Values 0 and 1 are still specialised, and "
    "every tensor size becomes dynamic too, which can cost some speed in the graph."
)
# Where the int goes, in the title and the why: a use the source shows needs an int, or one it cannot judge
SIZE_USE = ("is an int it uses as a size or in a branch",
            "`{name}` is used where a tensor cannot stand in for it (a size, a reshape, an if), so it stays an int.")
PASSED_USE = ("is an int it passes on to other code",
              "`{name}` is passed on to code the source does not show, so it stays an int here; passing it as a "
              "tensor is the other candidate.")


def suggest(finding: Finding, ctx: SuggestionContext, name: str, frame: str, frame_path: str, frame_line: int | None,
            expected: str | None, use: tuple[str, str] = SIZE_USE) -> Suggestion:
    """``dynamic=True`` on the compile of ``frame`` (defined at ``frame_path:frame_line``), which recompiled on its
    int parameter ``name``; NoPatch when that would not reduce the recompiles or no such compile is in the files."""
    if expected is not None and not _is_int(expected):
        raise NoPatch(f"`{name}` takes values like {expected}: dynamic=True keeps floats and other values specialised")
    tree = ctx.tree(frame_path)
    func = tree.function_def(frame, frame_line)
    if func is None:
        raise NoPatch(f"no function {frame} at {frame_path}:{frame_line} in the recorded source")
    ranged = _range_use(tree, func, name)
    if ranged is not None:
        raise NoPatch(f"`{name}` is a range() bound (line {ranged}): Dynamo unrolls the loop and specialises it "
                      "even with dynamic=True")
    paths = [frame_path, *([finding.path] if finding.path != frame_path else [])]
    found = [(ctx.tree(p), call_or_decorator) for p in paths if p in ctx.analysis.sources
             for call_or_decorator in _compiles_of(ctx.tree(p), func, tree)]
    if not found:
        raise NoPatch(f"no torch.compile of {frame} in {' or '.join(paths)}: pass dynamic=True where it is compiled")
    if len(found) > 1:
        raise NoPatch(f"{len(found)} torch.compile calls could compile {frame}: add dynamic=True to the one that does")
    where, node = found[0]
    new = _with_dynamic(where, node)
    return Suggestion(
        title=f"Compile {frame} with dynamic=True (`{name}` {use[0]})",
        why=WHY.format(use_why=use[1].format(name=name)),
        patch=patch_for(where, replace_nodes(where.module, {node: new})),
        alternatives=[
            f"keep `{name}` constant in the hot loop, or bucket it to a few values (one graph per value)",
            f"torch._dynamo.mark_dynamic on the tensor whose size `{name}` is, when it is one "
            "(only that size symbolic)",
        ],
    )


def without_static(ctx: SuggestionContext, frame: str, frame_path: str, frame_line: int | None) -> tuple[SourceTree, str]:
    """The file and patch that drop ``dynamic=False`` from the one torch.compile of ``frame``: Dynamo's automatic
    dynamic shapes then make a size or int that changes symbolic after one recompile. NoPatch where the compile does
    not pass ``dynamic=False`` or is not found once."""
    tree = ctx.tree(frame_path)
    func = tree.function_def(frame, frame_line)
    if func is None:
        raise NoPatch(f"no function {frame} at {frame_path}:{frame_line} in the recorded source")
    found = _compiles_of(tree, func, tree)
    if len(found) != 1:
        raise NoPatch(f"{len(found)} torch.compile calls compile {frame}, not one")
    node = found[0]
    call = node.decorator if isinstance(node, cst.Decorator) else node
    if not isinstance(call, cst.Call):
        raise NoPatch(f"the torch.compile of {frame} passes no dynamic=False")
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "dynamic"
                                        and isinstance(a.value, cst.Name) and a.value.value == "False")]
    if len(args) == len(call.args):
        raise NoPatch(f"the torch.compile of {frame} passes no dynamic=False")
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new_call = call.with_changes(args=args)
    new = node.with_changes(decorator=new_call) if isinstance(node, cst.Decorator) else new_call
    return tree, patch_for(tree, replace_nodes(tree.module, {node: new}))


def _compiles_of(tree: SourceTree, func: cst.FunctionDef, func_tree: SourceTree) -> list[cst.CSTNode]:
    """The torch.compile decorators and calls in ``tree`` that compile ``func``: ``@torch.compile(...)`` on it,
    ``f = torch.compile(f, ...)``, and for a ``forward``, ``torch.compile(model)`` where ``model = Class(...)``."""
    found: list[cst.CSTNode] = []
    if tree is func_tree:
        for decorator in func.decorators:
            expr = decorator.decorator
            if tree.qualified(expr.func if isinstance(expr, cst.Call) else expr) == "torch.compile":
                found.append(decorator)
    owner = _class_of(func_tree, func) if func.name.value == "forward" else None
    instances = _instances(tree, owner) if owner else set()
    for call in tree.nodes(cst.Call):
        if tree.qualified(call.func) != "torch.compile" or not call.args or call.args[0].keyword is not None:
            continue
        target = call.args[0].value
        if isinstance(target, cst.Name) and (target.value == func.name.value or target.value in instances):
            found.append(call)
        elif owner and isinstance(target, cst.Call) and isinstance(target.func, cst.Name):
            if target.func.value == owner:  # torch.compile(Net())
                found.append(call)
    return found


def _class_of(tree: SourceTree, func: cst.FunctionDef) -> str | None:
    block = tree.parent(func)
    owner = tree.parent(block) if block is not None else None
    return owner.name.value if isinstance(owner, cst.ClassDef) else None


def _instances(tree: SourceTree, owner: str) -> set[str]:
    """Names assigned ``Owner(...)`` (``model = Net()``)."""
    names = set()
    for assign in tree.nodes(cst.Assign):
        value = assign.value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == owner:
            names.update(t.target.value for t in assign.targets if isinstance(t.target, cst.Name))
    return names


def _with_dynamic(tree: SourceTree, node: cst.CSTNode) -> cst.CSTNode:
    """The decorator or call with ``dynamic=True`` added after its other arguments."""
    dynamic = cst.Arg(value=cst.Name("True"), keyword=cst.Name("dynamic"),
                      equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                            whitespace_after=cst.SimpleWhitespace("")))
    if isinstance(node, cst.Decorator) and not isinstance(node.decorator, cst.Call):  # bare @torch.compile
        return node.with_changes(decorator=cst.Call(func=node.decorator, args=[dynamic]))
    call = node.decorator if isinstance(node, cst.Decorator) else node
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dynamic":
            raise NoPatch(f"the torch.compile call already passes dynamic={tree.code(arg.value)}")
        if arg.star == "**":
            raise NoPatch("the torch.compile call passes **kwargs, which may hold dynamic=")
    args = list(call.args)
    if not args:  # @torch.compile()
        return node.with_changes(decorator=call.with_changes(args=[dynamic]))
    last = args[-1]
    if last.comma is not cst.MaybeSentinel.DEFAULT:  # a trailing comma (a call over several lines): keep its layout
        between = args[-2].comma if len(args) > 1 and args[-2].comma is not cst.MaybeSentinel.DEFAULT else cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" "))
        args[-1] = last.with_changes(comma=between)
        dynamic = dynamic.with_changes(comma=last.comma)
    new_call = call.with_changes(args=[*args, dynamic])
    return node.with_changes(decorator=new_call) if isinstance(node, cst.Decorator) else new_call


def _range_use(tree: SourceTree, func: cst.FunctionDef, name: str) -> int | None:
    """The line where ``name`` is an argument of ``range(...)`` in ``func``, if anywhere."""
    for call in tree.nodes(cst.Call):
        if isinstance(call.func, cst.Name) and call.func.value == "range" and tree.enclosing_function(call) is func:
            for arg in call.args:
                if any(isinstance(n, cst.Name) and n.value == name for n in descendants(arg.value, cst.Name)):
                    return tree.start_line(call)
    return None


def _is_int(text: str) -> bool:
    try:
        int(text.strip())
    except ValueError:
        return False
    return True
