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

from tdiag.analyzer.crash import short_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import raised_at

from tdiag.lazy_regex import lazy_regex

RULE = Rule("CRS006", "dynamic-constraint-violated", "error", "A mark_dynamic dimension was specialised: the program stopped",
            suggester="crash", claims="crashes", priority=20)
KIND = "constraint_violation"
SPECIALISED = lazy_regex(r"You marked (\S+) as dynamic but your code specialized it to be a constant \((\d+)\)")
VIOLATED = lazy_regex(r"Constraints violated \((.+?)\)!")


def matches(crash) -> bool:
    return short_name(crash.exception) == "ConstraintViolationError" or "Constraints violated" in crash.message


def describe(crash, ctx) -> None:
    m, name = SPECIALISED.search(crash.message), VIOLATED.search(crash.message)
    crash.detail = (f"{m.group(1)} was marked dynamic (mark_dynamic) but the code specialised it to {m.group(2)}"
                    if m else (name.group(1) if name else None))


def message(crash, ctx) -> str:
    return f"{crash.detail or 'a dimension marked dynamic was specialised'}; this line's guard specialised it{raised_at(crash)}"


def fix(crash, ctx) -> str:
    return ("use torch._dynamo.maybe_mark_dynamic instead of mark_dynamic (torch may then specialise), or remove the "
            "code that depends on the exact size")
