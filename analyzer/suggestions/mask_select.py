"""BRK007: a boolean-mask selection ``x[mask]`` whose result is reduced at once. The reduction is rewritten to weigh
by the mask instead of selecting, so every shape stays static and the graph does not break:

- ``F.cross_entropy(logits[m], labels[m])`` -> ``F.cross_entropy(logits.flatten(0, -2), labels.masked_fill(~m,
  -100).flatten(), ignore_index=-100)``: the mean over the entries the mask keeps, as before (the mask covers the
  labels' dimensions, the class dimension last, as a padding mask does);
- ``x[m].mean()`` -> ``torch.where(m, x, 0).sum() / m.expand_as(x).sum()``, ``x[m].sum()`` -> ``torch.where(m, x,
  0).sum()`` (a mask of x's shape: an elementwise mask of missing values).

Each is a candidate ``tdiag fix --verify`` runs: kept only where the break goes and the program prints the same
numbers (within the output tolerance: the sum runs in another order). torch's own hint, the
``capture_dynamic_output_shape_ops`` setting, is the next candidate. A selection kept in a variable, or reduced
otherwise, gets the advice without a patch.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes, torch_alias
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree, dotted

WHY = (
    "`x[mask]` holds as many elements as the mask has True values, a size known only from the data, so Dynamo ends "
    "the graph at it (aten.nonzero) and each new count can compile again. Weighing by the mask keeps every shape "
    "static: the same reduction over the same elements, in one graph."
)
IGNORE = -100  # cross_entropy's default ignore_index


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    from tdiag.analyzer.suggestions.generic import suggest as generic

    hinted = generic(finding, ctx)  # torch's hint as a patch: the next candidate
    try:
        tree = ctx.tree(finding.path)
        title, new_module = _rewrite(tree, finding.line)
    except NoPatch as why_not:
        hinted.patch_note = hinted.patch_note or f"no rewrite: {why_not}"
        hinted.alternatives = [_ADVICE, *hinted.alternatives]
        return hinted
    return Suggestion(title=title, why=WHY, patch=patch_for(tree, new_module),
                      fix=f"keep the shape static: {title[0].lower()}{title[1:]}",
                      alternatives=[*hinted.alternatives], candidates=[hinted] if hinted.patch else [])


_ADVICE = ("weigh by the mask instead of selecting: a loss with ignore_index (the labels set to -100 where the mask "
           "is False), or, for a masked mean, the sum of torch.where over the mask divided by the mask's count")


def _masked(node: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(x, mask) of ``x[mask]`` (one index, no slice); None for anything else."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or index.star is not None:
        return None
    if isinstance(index.value, (cst.Integer, cst.UnaryOperation, cst.SimpleString, cst.Tuple, cst.Ellipsis)):
        return None  # x[0], x[-1], x["key"], x[i, j]: no mask
    return node.value, index.value


def _rewrite(tree: SourceTree, line: int) -> tuple[str, cst.Module]:
    torch = torch_alias(tree)
    for call in tree.nodes_on_line(cst.Call, line):
        name = dotted(call.func) or ""
        if name.endswith("cross_entropy") and (replaced := _cross_entropy(tree, call)) is not None:
            return f"Weigh the loss by the mask: `{cst.Module([]).code_for_node(replaced)}` in place of " \
                f"`{tree.code(call)}`", replace_nodes(tree.module, {call: replaced})
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("mean", "sum") and not call.args:
            pair = _masked(call.func.value)
            if pair is None:
                continue
            x, mask = (tree.code(n) for n in pair)
            kept = cst.parse_expression(f"{torch}.where({mask}, {x}, 0).sum()")
            if call.func.attr.value == "mean":
                kept = cst.parse_expression(f"{torch}.where({mask}, {x}, 0).sum() / {_operand(tree, pair[1])}"
                                            f".expand_as({x}).sum()")
            return f"Weigh by the mask: `{cst.Module([]).code_for_node(kept)}` in place of `{tree.code(call)}`", \
                replace_nodes(tree.module, {call: kept})
    raise NoPatch(f"no `x[mask]` reduced at once on line {line} (cross_entropy of two selections, or .mean()/.sum())")


def _cross_entropy(tree: SourceTree, call: cst.Call) -> cst.BaseExpression | None:
    """``F.cross_entropy(logits[m], labels[m])`` weighed by ``m``; None when the call is not of that form (a third
    positional argument, its own ignore_index, reduction='none': another shape, or selections by two masks)."""
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if len(positional) != 2 or len(call.args) != len(positional) + len(keywords) or "ignore_index" in keywords:
        return None
    reduction = keywords.get("reduction")
    if reduction is not None and tree.code(reduction.value).strip("'\"") not in ("mean", "sum"):
        return None
    pairs = [_masked(a.value) for a in positional]
    if any(p is None for p in pairs) or tree.code(pairs[0][1]) != tree.code(pairs[1][1]):
        return None
    (logits, mask), (labels, _) = pairs
    kept = [f"{tree.code(a.keyword)}={tree.code(a.value)}" for a in call.args if a.keyword is not None]
    args = [f"{_operand(tree, logits)}.flatten(0, -2)",
            f"{_operand(tree, labels)}.masked_fill(~{_operand(tree, mask)}, {IGNORE}).flatten()",
            *kept, f"ignore_index={IGNORE}"]
    return cst.parse_expression(f"{tree.code(call.func)}({', '.join(args)})")


def _operand(tree: SourceTree, node: cst.BaseExpression) -> str:
    """``node``'s code, parenthesised unless it is a name, attribute, call or subscript (``a + b`` -> ``(a + b)``)."""
    code = tree.code(node)
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
    return code if isinstance(node, simple) else f"({code})"
