"""## What it does
Finds recompilations caused by a tensor's dtype or device changing between calls.

## Why is this bad?
A graph is specialised for dtypes and devices; each new combination compiles again.

## Example
```python
double(torch.ones(3, dtype=torch.float32))
double(torch.ones(3, dtype=torch.float64))
```

## Use instead
Cast inputs to one dtype before the compiled call (`x.to(torch.float32)`), or keep separate compiled functions
per dtype when both are really needed.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import frame_label, subject_name

RULE = Rule("RCP004", "dtype-recompile", "warning", "Recompiled because a dtype or device changed",
            suggester="dtype_change", claims="recompiles", priority=40)
KINDS = ("dtype", "device")  # GuardFailure.kind values this rule owns


def matches(r, f) -> bool:
    return f is not None and f.kind in KINDS


def message(r, f) -> str:
    return f"{frame_label(r)} recompiled: {f.kind if f else 'dtype'} of {subject_name(f)} changed" + (
        f" (expected {f.expected}, got {f.actual})" if f and f.expected and f.actual else ""
    )


def fix(r, f) -> str:
    return f"cast {subject_name(f)} to one dtype/device before the compiled call"
