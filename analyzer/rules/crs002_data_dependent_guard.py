"""## What it does
Finds a program that torch.compile stopped because Dynamo had to decide a condition on a value it only knows at
run time (a data-dependent guard: `if n > 2` where `n = x.sum().item()`), under `fullgraph=True` or with
`capture_scalar_outputs`. torch raises `UserError` ("Could not guard on data-dependent expression").

## Why is this bad?
The program does not run to its end: Dynamo cannot compile a graph whose shape depends on the value, and is not
allowed to split it.

## Example
```python
n = x.sum().item()
if n > 2:                    # Could not guard on data-dependent expression u0 > 2
    x = x * 2
```

## Use instead
```python
x = torch.where(x.sum() > 2, x * 2, x)     # keep the value on the device
torch._check(n > 0)                        # or tell the compiler a fact about the value
```
"""

from tdiag.analyzer.crash import short_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import raised_at

from tdiag.lazy_regex import lazy_regex

RULE = Rule("CRS002", "data-dependent-guard", "error", "A guard on a data-dependent value stopped the program",
            suggester="crash", claims="crashes", priority=30)
KIND = "data_dependent_guard"
DATA_DEPENDENT = lazy_regex(r"Could not guard on data-dependent expression (.+?) \(unhinted")


def matches(crash) -> bool:
    return (DATA_DEPENDENT.search(crash.message) is not None
            or "GuardOnDataDependentSymNode" in f"{short_name(crash.exception)} {crash.chain}")


def describe(crash, ctx) -> None:
    m = DATA_DEPENDENT.search(crash.message)
    crash.detail = m.group(1) if m else None
    crash.policy = "fullgraph=True"


def message(crash, ctx) -> str:
    return (f"Dynamo cannot decide `{crash.detail or 'a data-dependent condition'}` at compile time: it depends on a "
            f"tensor's value (a guard on a data-dependent value){raised_at(crash)}")


def fix(crash, ctx) -> str:
    return "branch on the device with torch.where / torch.cond, or bound the value with torch._check(...)"
