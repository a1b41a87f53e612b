"""## What it does
Finds `print`, `logging` and `warnings` calls inside compiled code that break the graph.

## Why is this bad?
Side effects that Dynamo cannot reorder end the graph; the print runs in Python between two graphs on every call.

## Example
```python
y = x * 2
print("y computed")
return y + 1
```

## Use instead
Move the call out of the compiled function, or let Dynamo defer it:
`torch._dynamo.config.reorderable_logging_functions.add(print)`.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import break_findings, where

RULE = Rule("BRK004", "print-or-logging", "warning", "print/logging/warnings inside compiled code",
            suggester="logging_call")


def check(ctx):
    return break_findings(
        ctx,
        RULE,
        lambda b: f"graph break: logging side effect in compiled code ({b.reason}){where(b)}",
        lambda b: "move it out of the compiled code, or add the logger method to "
        "torch._dynamo.config.ignore_logger_methods" if "Logger" in f"{b.reason} {b.context}"  # not a function
        else "move it out of the compiled code, or add it to torch._dynamo.config.reorderable_logging_functions",
    )
