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
from tdiag.analyzer.rules._breaks import reason_text, site_code

from tdiag.lazy_regex import lazy_regex

RULE = Rule("BRK004", "print-or-logging", "warning", "print/logging/warnings inside compiled code",
            suggester="logging_call", claims="breaks", priority=20,
            message="graph break: logging side effect in compiled code ({reason}){where}",
            fix="move it out of the compiled code, or add it to torch._dynamo.config.reorderable_logging_functions")
LOGGING_CALL = lazy_regex(r"\b(print|logging\.\w+|logger\.\w+|log\.\w+|warnings\.warn)\s*\(")
LOGGING_REASONS = ("builtin operator `print`", "logging")


def matches(b) -> bool:
    return bool(LOGGING_CALL.search(site_code(b))) or any(word in reason_text(b) for word in LOGGING_REASONS)


def fix(b) -> str:
    if "Logger" in f"{b.reason} {b.context}":  # a logger method: reorderable_logging_functions takes functions only
        return "move it out of the compiled code, or add the logger method to torch._dynamo.config.ignore_logger_methods"
    return RULE.fix
