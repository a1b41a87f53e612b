"""## What it does
Finds recompilations caused by a Python scalar (int, float, str, tuple length) whose value was baked into the
graph as a constant and then changed (`k == 2`).

Two guards on Python values are said as what changed rather than as torch writes them: the key order of a dict
(Dynamo unrolled a loop over `feats.items()` and guards on each position's key; the fix is one canonical key order),
and a value of a module-level dict that the program changes between calls (a counter updated inside the compiled
code: every call compiles again; the fix keeps that bookkeeping out of compiled code). Such a dict is the cause of
its whole recompile: the other guards that failed with it (an input's `requires_grad`) are not findings of their own.

## Why is this bad?
Every new value compiles the function again until the recompile limit is hit; after that it runs eagerly.

## Example
```python
for k in (2, 3):
    scale(x, k)
```

## Use instead
Pass the value as a tensor (`torch.tensor(k)`), keep it fixed, or let it be dynamic
(`torch._dynamo.config.automatic_dynamic_shapes` / `mark_dynamic` on a tensor carrying it).
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import guard_kinds

RULE = Rule("RCP002", "scalar-recompile", "warning", "Recompiled because a Python scalar changed",
            suggester="scalar_arg", claims="recompiles", priority=20,
            message="{frame} recompiled: {change}",
            fix="{catalogue_fix}")  # catalogue/guards.toml
matches = guard_kinds("value", "length")
