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
from tdiag.analyzer.rules._recompiles import guard_kinds

RULE = Rule("RCP004", "dtype-recompile", "warning", "Recompiled because a dtype or device changed",
            suggester="dtype_change", claims="recompiles", priority=40,
            message="{frame} recompiled: {kind} of {subject} changed{values}",
            fix="{catalogue_fix}")  # catalogue/guards.toml
matches = guard_kinds("dtype", "device")
