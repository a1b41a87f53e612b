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
from tdiag.analyzer.rules._breaks import reason_text, site_code

from tdiag.lazy_regex import lazy_regex

RULE = Rule("BRK003", "tensor-to-python", "warning", ".tolist()/.numpy() leave the graph", suggester="to_python",
            claims="breaks", priority=40,
            message="graph break: tensor converted to Python data ({reason}){where}",
            fix="keep it a tensor (vectorise), or move the conversion out of the compiled code")
TO_PYTHON = lazy_regex(r"\.(tolist|numpy)\s*\(")
OTHER_CAUSE = lazy_regex(r"marked as skipped|trace method `[^`]+` of class `(?!Tensor`)[^`]+`")


def matches(b) -> bool:
    if any(word in reason_text(b) for word in ("tolist", "numpy()")):
        return True
    # the line's `.numpy()` is the break only where torch names no other cause (blind batch 9: scipy's ufunc called
    # on `x.cpu().numpy()` is gb0156's method call of class `ufunc`; a skipped function called with one, gb0007's)
    return bool(TO_PYTHON.search(site_code(b))) and not OTHER_CAUSE.search(f"{b.reason} {b.explanation}")
