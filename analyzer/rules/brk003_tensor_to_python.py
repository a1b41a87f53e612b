"""## What it does
Finds `.tolist()` / `.numpy()` conversions of tensors inside compiled code.

## Why is this bad?
Converting a tensor to Python lists or NumPy arrays leaves the graph: Dynamo breaks it, materialises the data
on the host and continues in a new graph.

## Example
```python
values = x.tolist()
return torch.tensor(values) * 2
```

## Use instead
Keep the computation in tensor operations (vectorise), or move the conversion outside the compiled function.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import break_findings, where

RULE = Rule("BRK003", "tensor-to-python", "warning", ".tolist()/.numpy() leave the graph", suggester="to_python")


def check(ctx):
    return break_findings(
        ctx,
        RULE,
        lambda b: f"graph break: tensor converted to Python data ({b.reason}){where(b)}",
        lambda b: "keep it a tensor (vectorise), or move the conversion out of the compiled code",
    )
