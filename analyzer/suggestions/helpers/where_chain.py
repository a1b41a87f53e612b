"""BRK001 on an ``if``/``elif``/``else`` chain: nested ``torch.where`` calls, one per arm, in the chain's order.

``torch.where(c1, a, torch.where(c2, b, c))`` picks what the chain would have assigned: the first true condition
wins. It evaluates every condition and every arm, so all of them must be free of side effects (as for a plain
``if``/``else``); a name an arm does not assign keeps its value from before the chain. The finding on an ``elif``
line gets the same patch as the chain's head, so applying one fixes both breaks.
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
from tdiag.analyzer.suggestions.helpers.if_branches import (
    assignments,
    bound_outside,
    keep_layout,
    require_pure,
    single_return,
)
from tdiag.analyzer.suggestions.helpers.purity import names_read
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree


def chain_head(tree: SourceTree, node: cst.If) -> cst.If:
    """The ``if`` that starts the chain ``node`` is an ``elif`` of (``node`` itself for a head)."""
    while isinstance(tree.parent(node), cst.If) and tree.parent(node).orelse is node:
        node = tree.parent(node)
    return node


def arms(head: cst.If) -> tuple[list[tuple[cst.BaseExpression, cst.BaseSuite]], cst.BaseSuite | None]:
    """([(condition, body), ...] in order, the final ``else`` body or None)."""
    found = []
    node: cst.If | cst.Else | None = head
    while isinstance(node, cst.If):
        found.append((node.test, node.body))
        node = node.orelse
    return found, (node.body if isinstance(node, cst.Else) else None)


def where_chain_patch(tree: SourceTree, head: cst.If) -> tuple[str, str]:
    conditional, final = arms(head)
    torch = torch_alias(tree)
    config = tree.module.config_for_parsing
    for test, _ in conditional:
        require_pure(test, tree)
    returned = [single_return(body) for _, body in conditional]
    if all(v is not None for v in returned) and final is not None and single_return(final) is not None:
        for value in [*returned, single_return(final)]:
            require_pure(value, tree)
        nested = _nest(torch, [t for t, _ in conditional], returned, single_return(final))
        line = parse_template_statement("return {value}", config=config, value=nested)
        new_module = replace_statement(tree, head, [keep_layout(line, head)])
        return patch_for(tree, with_torch_import(tree, new_module)), "Return nested torch.where(...) for the if/elif chain"
    assigned = [assignments(body, tree, f"arm {i + 1} of the chain") for i, (_, body) in enumerate(conditional)]
    otherwise = assignments(final, tree, "the `else` side") if final is not None else {}
    names = list(dict.fromkeys([n for side in [*assigned, otherwise] for n in side]))
    if not names:
        raise NoPatch("the chain assigns nothing")
    for name in names:
        everywhere = all(name in side for side in assigned) and name in otherwise
        if not everywhere and not bound_outside(tree, head, name):
            raise NoPatch(f"`{name}` is not assigned by every arm and has no value before the `if`")
    for i, name in enumerate(names):
        earlier = set(names[:i])
        for side in [*assigned, otherwise]:
            if name in side and names_read(side[name]) & earlier:
                raise NoPatch(f"the value of `{name}` reads a name the chain also assigns")
    statements = []
    conditions: list[cst.BaseExpression] = [t for t, _ in conditional]
    if len(names) > 1:
        # Evaluate each condition once, as the chain did.
        flags = []
        for i, test in enumerate(conditions):
            flag = cst.Name(tree.fresh_name(f"take_{i + 1}", head))
            statements.append(parse_template_statement("{flag} = {cond}", config=config, flag=flag, cond=test))
            flags.append(flag)
        conditions = flags
    for name in names:
        values = [side.get(name, cst.Name(name)) for side in assigned]
        nested = _nest(torch, conditions, values, otherwise.get(name, cst.Name(name)))
        statements.append(parse_template_statement("{name} = {value}", config=config, name=cst.Name(name), value=nested))
    statements[0] = keep_layout(statements[0], head)
    new_module = with_torch_import(tree, replace_statement(tree, head, statements))
    target = ", ".join(f"`{n}`" for n in names)
    return patch_for(tree, new_module), f"Compute {target} with nested torch.where for the if/elif chain"


def _nest(torch: str, conditions, values, last: cst.BaseExpression) -> cst.BaseExpression:
    result = last
    for cond, value in zip(reversed(conditions), reversed(values)):
        result = cst.Call(
            func=cst.Attribute(value=cst.Name(torch), attr=cst.Name("where")),
            args=[cst.Arg(cond, comma=_comma()), cst.Arg(value, comma=_comma()), cst.Arg(result)],
        )
    return result


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
