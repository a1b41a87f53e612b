"""BRK001 where ``torch.where`` is not a faithful rewrite but ``torch.cond`` is: branches of several statements.

A branch that computes temporaries (``t = x * 2`` then ``y = t + 1``) cannot become one ``torch.where`` per name,
but it can become a function: ``torch.cond`` traces both functions into one graph and runs only the taken one.
Made only when every statement of both sides is a plain ``name = expr`` assignment (or a final ``return``) whose
value has no side effect we can see, since torch.cond forbids mutation inside a branch. The functions close over the
names they only read; a name a side reads before assigning it (``y = y + 1``) is passed in as an operand, since it
would otherwise be a local of the branch function. The patch assumes what torch.cond requires of the outputs (same
shape and dtype on both sides); `tdiag fix --verify` re-runs the program and shows whether that held.
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import parse_template_statement
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    patch_for,
    replace_statement,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.if_branches import bound_outside, require_pure
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree


def cond_patch(tree: SourceTree, node: cst.If) -> tuple[str, str]:
    if node.orelse is not None and not isinstance(node.orelse, cst.Else):
        raise NoPatch("an if/elif chain")
    then_lines = _lines(node.body, tree, "the `if` side")
    else_lines = _lines(node.orelse.body, tree, "the `else` side") if node.orelse else []
    then_returns, else_returns = _ends_in_return(then_lines), _ends_in_return(else_lines)
    if then_returns != else_returns or (then_returns and not else_lines):
        raise NoPatch("one side returns and the other does not")
    then_assigned, else_assigned = _assigned(then_lines), _assigned(else_lines)
    outputs: list[str] = []
    if not then_returns:
        for name in dict.fromkeys([*then_assigned, *else_assigned]):
            on_both = name in then_assigned and name in else_assigned
            if on_both or bound_outside(tree, node, name):
                outputs.append(name)
            elif _read_after(tree, node, name):
                raise NoPatch(f"`{name}` is assigned on one side only, has no value before the `if`, and is read after it")
        if not outputs:
            raise NoPatch("the branch assigns nothing used after it")
    params = list(dict.fromkeys([*_read_before_assigned(then_lines), *_read_before_assigned(else_lines)]))
    for name in params:
        if not bound_outside(tree, node, name):
            raise NoPatch(f"`{name}` is read before it is assigned and has no value before the `if`")
    config = tree.module.config_for_parsing
    torch = torch_alias(tree)
    names = [tree.fresh_name("then_branch", node), tree.fresh_name("else_branch", node)]
    tail = None if then_returns else _return_of(outputs, config)
    then_def = _function(names[0], params, then_lines, tail)
    else_def = _function(names[1], params, else_lines, tail)
    operands = cst.Tuple([cst.Element(cst.Name(p)) for p in params]) if params else cst.Tuple([])
    call = parse_template_statement(
        "{torch}.cond({cond}, {then}, {other}, {operands})",
        config=config, torch=cst.Name(torch), cond=node.test, then=cst.Name(names[0]), other=cst.Name(names[1]),
        operands=operands,
    ).body[0].value
    if then_returns:
        result = cst.SimpleStatementLine([cst.Return(call)])
    else:
        target = cst.Name(outputs[0]) if len(outputs) == 1 else cst.Tuple(
            [cst.Element(cst.Name(n)) for n in outputs], lpar=[], rpar=[]
        )
        result = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], call)])
    then_def = then_def.with_changes(leading_lines=node.leading_lines)
    result = result.with_changes(trailing_whitespace=node.body.header)
    new_module = with_torch_import(tree, replace_statement(tree, node, [then_def, else_def, result]))
    what = "the returned value" if then_returns else ", ".join(f"`{n}`" for n in outputs)
    return patch_for(tree, new_module), f"Compute {what} with torch.cond instead of branching"


def _lines(block: cst.BaseSuite, tree: SourceTree, side: str) -> list[cst.SimpleStatementLine]:
    if not isinstance(block, cst.IndentedBlock):
        raise NoPatch(f"{side} is on the `if` line")
    lines = []
    for i, line in enumerate(block.body):
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            raise NoPatch(f"{side} holds a statement other than assignments")
        small = line.body[0]
        if isinstance(small, cst.Return) and small.value is not None and i == len(block.body) - 1:
            require_pure(small.value, tree)
        elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            require_pure(small.value, tree)
        else:
            raise NoPatch(f"{side} does more than assign names (`{tree.code(small).strip()}`)")
        lines.append(line)
    return lines


def _ends_in_return(lines: list[cst.SimpleStatementLine]) -> bool:
    return bool(lines) and isinstance(lines[-1].body[0], cst.Return)


def _assigned(lines: list[cst.SimpleStatementLine]) -> list[str]:
    return list(dict.fromkeys(s.body[0].targets[0].target.value for s in lines if isinstance(s.body[0], cst.Assign)))


def _read_before_assigned(lines: list[cst.SimpleStatementLine]) -> list[str]:
    """Names a side reads from outside and also assigns: they would be locals of its function, so pass them in."""
    assigned_so_far: set[str] = set()
    every_assigned = set(_assigned(lines))
    found = []
    for line in lines:
        small = line.body[0]
        for name in sorted(names_read(small.value)):
            if name in every_assigned and name not in assigned_so_far:
                found.append(name)
        if isinstance(small, cst.Assign):
            assigned_so_far.add(small.targets[0].target.value)
    return found


def _read_after(tree: SourceTree, node: cst.If, name: str) -> bool:
    scope = tree.scopes.get(node)
    if scope is None:
        return True
    end = tree.positions[node].end.line
    return any(
        tree.positions.get(access.node) is not None and tree.positions[access.node].start.line > end
        for access in scope.accesses[name]
    )


def _return_of(outputs: list[str], config) -> cst.SimpleStatementLine:
    value = cst.Name(outputs[0]) if len(outputs) == 1 else cst.Tuple(
        [cst.Element(cst.Name(n)) for n in outputs], lpar=[], rpar=[]
    )
    return cst.SimpleStatementLine([cst.Return(value)])


def _function(name: str, params: list[str], lines, tail) -> cst.FunctionDef:
    body = [line.with_changes(leading_lines=[]) if i == 0 else line for i, line in enumerate(lines)]
    if tail is not None:
        body.append(tail)
    return cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters([cst.Param(cst.Name(p)) for p in params]),
        body=cst.IndentedBlock(body),
    )
