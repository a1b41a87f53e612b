"""## What it does
Finds calls Dynamo cannot trace: C extensions, unsupported builtins, functions marked as skipped and
third-party code (the break may happen deep inside a library; the finding points at your line that called it).

## Why is this bad?
The call runs in Python between two graphs on every step; everything before and after it compiles separately.

## Example
```python
y = x * 2
label = jinja2.Template("scale={{ s }}").render(s=2)
```

## Use instead
Move the call out of the compiled region, wrap it with `torch.compiler.disable`, register it with
`torch.compiler.allow_in_graph` when it only works on tensors, or make it a `torch.library.custom_op` with a
fake (meta) implementation.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import reason_text

RULE = Rule("BRK005", "untraceable-call", "warning", "Call into code Dynamo cannot trace", suggester="untraceable_call",
            claims="breaks", priority=60,
            message="graph break: call Dynamo cannot trace ({reason}){where}",
            fix="move the call out, or wrap it: torch.compiler.disable / allow_in_graph / torch.library.custom_op")
UNTRACEABLE = ("skipped", "builtin", "c function", "unsupported context manager", "not supported")


def matches(b) -> bool:
    reason = reason_text(b)
    unsupported_call = "unsupported" in reason and " call" in reason  # "Unsupported Tensor.backward() call"
    return b.library_frame is not None or unsupported_call or any(word in reason for word in UNTRACEABLE)
