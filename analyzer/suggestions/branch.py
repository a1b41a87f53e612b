"""BRK001: a branch on a tensor value. ``torch.where`` when both sides only compute values, else a ``torch.cond`` sketch.

``torch.where`` computes both sides and picks elementwise, so it is only a faithful rewrite when computing the
side that was not taken changes nothing: no calls that may have effects, no returns mixed with assignments, no
order dependence between the assigned names. Anything else gets the ``torch.cond`` shape as text, never a patch.
"""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.helpers import parse_template_statement
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    replace_statement,
    torch_alias,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.if_branches import (
    assignments,
    bound_outside,
    keep_layout,
    require_pure,
    single_return,
)
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

WHERE_WHY = (
    "torch.where computes both sides and selects elementwise on the device, so the condition never has to be "
    "read back to Python: one graph instead of two, and no host-device sync. It assumes both sides give tensors "
    "of the same shape and dtype (they are computed either way, so keep them cheap)."
)
COND_WHY = (
    "torch.cond keeps a data-dependent branch inside one graph: both branch functions are traced, and only the "
    "taken one runs. Both must take tensors, return tensors of the same shape and dtype, and have no side effects."
)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    tree = ctx.tree(finding.path)
    node = tree.statement_at((cst.If, cst.While), finding.line)
    if node is None:
        kept = filter_suggestion(finding, ctx)
        if kept is not None:
            return kept
        raise NoPatch("no `if` statement starts on this line of the recorded source")
    if isinstance(node, cst.While):
        raise NoPatch("a `while` loop on a tensor value: compute the trip count on the device or use torch.cond per step")
    make_patch = _where_patch
    if isinstance(node.orelse, cst.If) or isinstance(tree.parent(node), cst.If):
        from tdiag.analyzer.suggestions.helpers import where_chain  # only for an if/elif chain

        node, make_patch = where_chain.chain_head(tree, node), where_chain.where_chain_patch
    try:
        patch, title = make_patch(tree, node)
    except NoPatch as why_not:
        cond = _cond_suggestion(tree, node, why_not)
        if cond is not None:
            return cond
        sketch = cond_sketch(tree, node)
        return Suggestion(
            title="Express the branch with torch.cond",
            why=f"{COND_WHY}\n\n{sketch}",
            patch=None,
            patch_note=f"no torch.where rewrite: {why_not}",
            alternatives=[
                "move the branch out of the compiled function (decide on the host, call one of two compiled functions)",
                "if the condition rarely changes, compute it once outside and pass a Python bool",
            ],
        )
    return Suggestion(
        title=title,
        why=WHERE_WHY,
        patch=patch,
        alternatives=[f"torch.cond with the branch bodies as functions:\n{cond_sketch(tree, node)}"],
    )


def filter_suggestion(finding: Finding, ctx: SuggestionContext) -> Suggestion | None:
    """A comprehension's ``if`` on a tensor value (``[i for i in ids if i != blank]``): a filter, whose length is
    read from the data. It has no second branch, so neither torch.where nor torch.cond can express it: the tensor
    stays whole and a mask selects, after the compiled code or weighed inside it. None where the line holds no
    comprehension with an ``if``."""
    tree = ctx.tree(finding.path)
    filters = [c for kind in (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
               for c in tree.nodes_on_line(kind, finding.line)
               if any(f.ifs for f in _for_clauses(c))]
    if not filters:
        return None
    text = tree.code(filters[0])
    return Suggestion(
        title="Select with a mask instead of filtering in Python",
        fix=(f"`{text}` filters by tensor values, so how many items stay is read from the data (and each item's "
             "test is a data-dependent branch): keep the tensor whole and select with a boolean mask after the "
             "compiled code returns (index the tensor with the boolean result of the same test), or, inside it, weigh "
             "by the mask (torch.where) where a fixed size works"),
        why=("A comprehension that keeps the items whose tensor test is true reads each test back to Python (a graph "
             "break per item) and makes the result's length depend on the data. A boolean mask does the same "
             "selection on the device in one operation; its result's size is still the data's, so the selection "
             "belongs after the compiled code, where sizes may vary."),
        patch_note="no patch: where the selected items go next decides where the mask is applied",
    )


def _for_clauses(comp: cst.CSTNode) -> list[cst.CompFor]:
    out, clause = [], getattr(comp, "for_in", None)
    while clause is not None:
        out.append(clause)
        clause = clause.inner_for_in
    return out


def _cond_suggestion(tree: SourceTree, node: cst.If, why_not_where: NoPatch) -> Suggestion | None:
    from tdiag.analyzer.suggestions.helpers.cond_patch import cond_patch  # imports this module's helpers

    try:
        patch, title = cond_patch(tree, node)
    except NoPatch:
        return None
    return Suggestion(title=title, why=COND_WHY, patch=patch, alternatives=[f"no torch.where rewrite: {why_not_where}"])


# --- torch.where ---------------------------------------------------------------------------------------------
def _where_patch(tree: SourceTree, node: cst.If) -> tuple[str, str]:
    torch = torch_alias(tree)
    returned = _returned_values(tree, node)
    if returned is not None:
        then_value, else_value, trailing_return = returned
        for side in (then_value, else_value):
            require_pure(side, tree)
        new_line = parse_template_statement(
            "return {torch}.where({cond}, {then}, {other})",
            config=tree.module.config_for_parsing,
            torch=cst.Name(torch), cond=node.test, then=then_value, other=else_value,
        )
        removed = [trailing_return] if trailing_return is not None else []
        new_module = replace_statement(tree, node, [keep_layout(new_line, node)], removed)
        return patch_for(tree, with_torch_import(tree, new_module)), (
            "Return torch.where(...) instead of branching"
        )
    then_assigned = assignments(node.body, tree, "the `if` side")
    else_assigned = assignments(node.orelse.body, tree, "the `else` side") if node.orelse else {}
    names = list(dict.fromkeys([*then_assigned, *else_assigned]))
    if not names:
        raise NoPatch("the branch assigns nothing")
    for name in names:
        if (name not in then_assigned or name not in else_assigned) and not bound_outside(tree, node, name):
            raise NoPatch(f"`{name}` is only assigned on one side and has no value before the `if`")
    for i, name in enumerate(names):
        earlier = set(names[:i])
        for value in (then_assigned.get(name), else_assigned.get(name)):
            if value is not None and names_read(value) & earlier:
                raise NoPatch(f"the value of `{name}` reads a name the branch also assigns")
    statements: list[cst.SimpleStatementLine] = []
    cond: cst.BaseExpression = node.test
    if len(names) > 1 and not isinstance(node.test, cst.Name):
        # Evaluate the condition once, as the `if` did.
        flag = tree.fresh_name("take_then", node)
        statements.append(
            parse_template_statement("{flag} = {cond}", config=tree.module.config_for_parsing, flag=cst.Name(flag), cond=node.test)
        )
        cond = cst.Name(flag)
    for name in names:
        statements.append(
            parse_template_statement(
                "{name} = {torch}.where({cond}, {then}, {other})",
                config=tree.module.config_for_parsing,
                name=cst.Name(name), torch=cst.Name(torch), cond=cond,
                then=then_assigned.get(name, cst.Name(name)), other=else_assigned.get(name, cst.Name(name)),
            )
        )
    statements[0] = keep_layout(statements[0], node)
    new_module = with_torch_import(tree, replace_statement(tree, node, statements))
    target = ", ".join(f"`{n}`" for n in names)
    return patch_for(tree, new_module), f"Compute {target} with torch.where instead of branching"



def _returned_values(tree: SourceTree, node: cst.If):
    """(then value, else value, the return after the `if` to remove) for `if c: return a` + `else: return b`
    or `return b` right after; None for other shapes."""
    then_value = single_return(node.body)
    if then_value is None:
        return None
    if node.orelse is not None:
        if not isinstance(node.orelse, cst.Else):
            return None
        else_value = single_return(node.orelse.body)
        return (then_value, else_value, None) if else_value is not None else None
    block = tree.parent(node)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return None
    body = list(block.body)
    at = body.index(node)
    if at + 1 >= len(body):
        return None
    after = body[at + 1]
    else_value = single_return(cst.IndentedBlock(body=[after])) if isinstance(after, cst.SimpleStatementLine) else None
    return (then_value, else_value, after) if else_value is not None else None






# --- torch.cond sketch ---------------------------------------------------------------------------------------
def cond_sketch(tree: SourceTree, node: cst.If) -> str:
    torch = tree.torch_name() or "torch"
    then_lines = _block_code(tree, node.body)
    else_lines = _block_code(tree, node.orelse.body) if isinstance(node.orelse, cst.Else) else []
    returns = single_return(node.body) is not None
    assigned = sorted(_assigned_names(node))
    reads = sorted((names_read(node.body) | (names_read(node.orelse) if node.orelse else set())) - {torch, "self"})
    inputs = [n for n in reads if bound_outside(tree, node, n)] or reads
    args = ", ".join(inputs)
    outputs = ", ".join(assigned)
    tail = "" if returns else f"    return {outputs or '...'}\n"
    then_fn = f"def then_branch({args}):\n{_indent(then_lines)}{tail}"
    else_body = else_lines or ([] if returns else ["pass"])
    else_fn = f"def else_branch({args}):\n{_indent(else_body)}{tail}"
    call = f"{torch}.cond({tree.code(node.test).strip()}, then_branch, else_branch, ({args}{',' if len(inputs) == 1 else ''}))"
    result = f"return {call}" if returns else f"{outputs or 'result'} = {call}"
    return f"{then_fn}\n{else_fn}\n{result}"


def _block_code(tree: SourceTree, block: cst.BaseSuite) -> list[str]:
    if isinstance(block, cst.IndentedBlock):
        return [textwrap.dedent(tree.code(line)).rstrip("\n") for line in block.body]
    return [tree.code(block).strip()]


def _indent(lines: list[str]) -> str:
    return "".join(textwrap.indent(line, "    ") + "\n" for line in lines)


def _assigned_names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            if isinstance(target.target, cst.Name):
                found.add(target.target.value)

        def visit_AugAssign(self, aug: cst.AugAssign) -> None:
            if isinstance(aug.target, cst.Name):
                found.add(aug.target.value)

    node.visit(Visitor())
    return found
