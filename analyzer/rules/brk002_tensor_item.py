"""## What it does
Finds `Tensor.item()` calls inside compiled code (torch GB0124).

## Why is this bad?
`.item()` turns a tensor into a Python number. By default Dynamo cannot keep that number symbolic, so it
breaks the graph, synchronises with the device and continues in a new graph.

## Example
```python
scale = x.abs().max().item()
return x / scale
```

## Use instead
```python
scale = x.abs().max()        # keep it a tensor
return x / scale
```
or set `torch._dynamo.config.capture_scalar_outputs = True` to capture the scalar in the graph.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import reason_text

RULE = Rule("BRK002", "tensor-item", "warning", "Tensor.item() converts to a Python scalar and splits the graph",
            suggester="scalar_item", claims="breaks", priority=30,
            message="graph break: Tensor.item() converts a tensor to a Python scalar{where}",
            fix="keep the value a tensor, or set torch._dynamo.config.capture_scalar_outputs = True")


def matches(b) -> bool:
    return b.gb_id == "GB0124" or "tensor.item()" in reason_text(b)
