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

import re

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import reason_text, site_code, where

RULE = Rule("BRK004", "print-or-logging", "warning", "print/logging/warnings inside compiled code",
            suggester="logging_call", claims="breaks", priority=20)
LOGGING_CALL = re.compile(r"\b(print|logging\.\w+|logger\.\w+|log\.\w+|warnings\.warn)\s*\(")


def matches(b) -> bool:
    reason = reason_text(b)
    return bool(LOGGING_CALL.search(site_code(b))) or "builtin operator `print`" in reason or "logging" in reason


def message(b) -> str:
    return f"graph break: logging side effect in compiled code ({b.reason}){where(b)}"


def fix(b) -> str:
    return "move it out of the compiled code, or add it to torch._dynamo.config.reorderable_logging_functions"
