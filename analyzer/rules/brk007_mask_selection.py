"""## What it does
Finds graph breaks at a boolean-mask selection (`x[mask]`) inside compiled code: torch reports `aten.nonzero`, an
operator whose output size depends on the values of its input ("Dynamic shape operator").

## Why is this bad?
How many elements `x[mask]` holds is known only once the mask's values are, so Dynamo ends the graph there, runs the
selection eagerly and resumes in a new graph, which recompiles when the selected count changes (a new size each
batch: padding masks, missing-value masks).

## Example
```python
return F.cross_entropy(logits[active], labels[active])
```

## Use instead
Keep every shape static and let the mask weigh the values instead of removing them:
```python
return F.cross_entropy(logits.flatten(0, -2), labels.masked_fill(~active, -100).flatten(), ignore_index=-100)
loss = torch.where(mask, err, 0).sum() / mask.sum()        # err[mask].mean()
```
or let Dynamo trace the data-dependent size (`torch._dynamo.config.capture_dynamic_output_shape_ops = True`, torch's
own hint): one graph, with a size Inductor cannot specialise on.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import reason_text, site_code

RULE = Rule("BRK007", "mask-selection", "warning", "A boolean-mask selection x[mask] has a data-dependent size",
            suggester="mask_select", claims="breaks", priority=35,
            message="graph break: a boolean-mask selection (`x[mask]`): its size depends on the mask's values "
                    "(aten.nonzero){where}",
            fix="keep the shape static: weigh by the mask instead of selecting (a loss with ignore_index; a masked "
                "mean as the sum of torch.where over the mask, divided by the mask's count), or "
                "torch._dynamo.config.capture_dynamic_output_shape_ops = True (torch's hint)")


def matches(b) -> bool:
    # torch's facts: the operator (aten.nonzero, which boolean indexing lowers to) at a subscript of the user's own
    # line (a library's nonzero, torch_geometric's self-loops say, is reached through a call: not this rule's)
    return ("aten.nonzero" in reason_text(b) and b.library_frame is None
            # Python 3.14 subscripts with BINARY_OP; without the instruction, the line's text decides
            and (b.opname == "BINARY_SUBSCR" or (b.opname in (None, "BINARY_OP") and "[" in site_code(b))))
