"""## What it does
Finds a program that torch.compile stopped with a `ConstraintViolationError`: a dimension marked dynamic with
`torch._dynamo.mark_dynamic` that the code specialised to one value (a branch or check on the size). The finding
is on the line that specialised it and names the dimension.

## Why is this bad?
The program does not run to its end: `mark_dynamic` is a promise that the code works for any size, and the code
broke it.

## Example
```python
torch._dynamo.mark_dynamic(x, 0)
compiled(x)                  # inside: if x.shape[0] == 8: ...  -> ConstraintViolationError
```

## Use instead
`torch._dynamo.maybe_mark_dynamic(x, 0)` (dynamic where the code allows, specialised where it does not), or remove
the code that depends on the exact size.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import raised_at

RULE = Rule("CRS006", "dynamic-constraint-violated", "error", "A mark_dynamic dimension was specialised: the program stopped",
            suggester="crash", claims="crashes")


def matches(crash) -> bool:
    return crash.kind == "constraint_violation"


def message(crash, ctx) -> str:
    return f"{crash.detail or 'a dimension marked dynamic was specialised'}; this line's guard specialised it{raised_at(crash)}"


def fix(crash, ctx) -> str:
    return ("use torch._dynamo.maybe_mark_dynamic instead of mark_dynamic (torch may then specialise), or remove the "
            "code that depends on the exact size")
