"""## What it does
Finds recompilations caused by a Python scalar (int, float, str, tuple length) whose value was baked into the
graph as a constant and then changed (`k == 2`).

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
from tdiag.analyzer.rules._recompiles import frame_label, subject_name

RULE = Rule("RCP002", "scalar-recompile", "warning", "Recompiled because a Python scalar changed",
            suggester="scalar_arg", claims="recompiles", priority=20)
KINDS = ("value", "length")  # GuardFailure.kind values this rule owns


def matches(r, f) -> bool:
    return f is not None and f.kind in KINDS


def message(r, f) -> str:
    return f"{frame_label(r)} recompiled: Python value {subject_name(f)} changed" + (
        f" (compiled for {f.expected})" if f and f.expected else ""
    )


def fix(r, f) -> str:
    return f"pass {subject_name(f)} as a tensor, or keep it constant across calls"
