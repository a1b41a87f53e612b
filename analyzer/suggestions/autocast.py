"""WRN002: the user's call of the compiled code under ``torch.autocast("cuda", dtype=torch.bfloat16)``, as torch's
AMP recipe writes it: the call and the statements after it that compute the loss go into the ``with`` block, the
``.backward()`` and what follows stay outside. Where no backward follows in the same block (an evaluation call, a
step function that runs its own backward), the call's statement alone is wrapped. A precision trade-off, measured by
the step time (Suggestion.step_time) and kept only within the user's ``--output-tolerance``."""

from __future__ import annotations

import re

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers.context import (NoPatch, SuggestionContext, patch_for, replace_statement,
                                                        torch_alias, with_torch_import)
from tdiag.analyzer.suggestions.helpers.syntax import descendants

# a file that already chooses its precision: its own autocast, or a model cast to a low precision
ALREADY = re.compile(r"^[^#\n]*(?:\bautocast\s*\(|\.(?:half|bfloat16)\s*\(\)|dtype\s*=\s*\w*\.?(?:bfloat16|float16|half)\b)",
                     re.M)


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    import libcst as cst

    tree = ctx.tree(finding.path)
    if ALREADY.search(tree.text):
        raise NoPatch("the file already chooses a lower precision (autocast or a bfloat16/float16 cast)")
    statement = tree.statement_at(cst.SimpleStatementLine, finding.line)
    if statement is None or not isinstance(tree.parent(statement), (cst.IndentedBlock, cst.Module)):
        raise NoPatch("the compiled call is not a statement of its own line")
    if _calls_backward(statement):
        raise NoPatch("the call's own line runs the backward")
    body = list(tree.parent(statement).body)
    start = next(i for i, s in enumerate(body) if s is statement)
    # the loss after the call is computed under autocast, the backward outside it; without a backward in the block,
    # the call alone
    end = next((i for i in range(start + 1, len(body)) if _calls_backward(body[i])), start + 1)
    torch = torch_alias(tree)
    wrapped = cst.With(
        items=[cst.WithItem(cst.parse_expression(f'{torch}.autocast("cuda", dtype={torch}.bfloat16)'))],
        body=cst.IndentedBlock(body=[statement.with_changes(leading_lines=[]), *body[start + 1:end]]),
        leading_lines=statement.leading_lines,
    )
    module = replace_statement(tree, statement, [wrapped], removed=body[start + 1:end])
    lines = end - start
    return Suggestion(
        title=(f'Run the compiled call{" and the loss after it" if lines > 1 else ""} under '
               f'{torch}.autocast("cuda", dtype={torch}.bfloat16)'),
        why=("A precision trade-off, not a structural fix: under autocast the matrix multiplications and convolutions "
             "run in bfloat16 on the tensor cores while the weights, reductions and the optimizer stay float32; the "
             "backward stays outside the block, as torch's AMP recipe writes it. Printed losses move in their second "
             "or third digit, so `tdiag fix --verify` keeps it only when the step is faster and the output is the "
             "program's own within --output-tolerance (e.g. 5e-2 to accept bfloat16's rounding)."),
        patch=patch_for(tree, with_torch_import(tree, module)),
        step_time=True,
    )


def _calls_backward(statement) -> bool:
    import libcst as cst

    return any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
               for c in descendants(statement, cst.Call))
