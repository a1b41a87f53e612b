"""The pieces of a branch rewrite that the torch.where patches share (branch's one `if`, where_chain's `if/elif`
chain): what a side of the `if` assigns or returns, whether an expression may run on both sides, where a name is
bound, and keeping the `if`'s comments with the code that replaces it."""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.suggestions.helpers.context import NoPatch
from tdiag.analyzer.suggestions.helpers.purity import names_read, side_effects
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree


def assignments(block: cst.BaseSuite, tree: SourceTree, side: str) -> dict[str, cst.BaseExpression]:
    """name -> value for a side made only of ``name = expr`` / ``name op= expr`` lines; NoPatch otherwise."""
    if not isinstance(block, cst.IndentedBlock):
        block_body = block.body if isinstance(block, cst.SimpleStatementSuite) else []
        statements = list(block_body)
    else:
        statements = []
        for line in block.body:
            if not isinstance(line, cst.SimpleStatementLine):
                raise NoPatch(f"{side} holds a `{type(line).__name__.lower()}` statement")
            statements.extend(line.body)
    assigned: dict[str, cst.BaseExpression] = {}
    for small in statements:
        if isinstance(small, cst.Pass):
            continue
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name, value = small.targets[0].target.value, small.value
        elif isinstance(small, cst.AugAssign):
            # On a tensor `y += e` writes into the tensor every alias of `y` sees; torch.where would not.
            raise NoPatch(f"{side} updates a value in place (`{tree.code(small).strip()}`)")
        else:
            raise NoPatch(f"{side} does more than assign names (`{tree.code(small).strip()}`)")
        if name in assigned:
            raise NoPatch(f"{side} assigns `{name}` twice")
        if names_read(value) & set(assigned):
            raise NoPatch(f"{side} computes `{name}` from a name it assigned just before")
        require_pure(value, tree)
        assigned[name] = value
    return assigned


def single_return(block: cst.BaseSuite) -> cst.BaseExpression | None:
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if len(lines) != 1:
        return None
    line = lines[0]
    smalls = line.body if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []
    if len(smalls) == 1 and isinstance(smalls[0], cst.Return) and smalls[0].value is not None:
        return smalls[0].value
    return None


def require_pure(expr: cst.BaseExpression, tree: SourceTree) -> None:
    problems = side_effects(expr, tree)
    if problems:
        raise NoPatch(f"`{tree.code(expr).strip()}` has {problems[0]}, which torch.where would run on both sides")


def bound_outside(tree: SourceTree, node: cst.If, name: str) -> bool:
    scope = tree.scopes.get(node)
    if scope is None:
        return False
    for assignment in scope.assignments[name]:
        target = getattr(assignment, "node", None)
        if target is not None and node not in set(tree.ancestors(target)):
            return True
    return False


def keep_layout(line: cst.SimpleStatementLine, node: cst.If) -> cst.SimpleStatementLine:
    # Comments above the `if` and on its header line stay with the code that replaces it.
    return line.with_changes(leading_lines=node.leading_lines, trailing_whitespace=node.body.header)
