"""## What it does
Reports recompilations whose failing guard no more specific RCP rule covers: object identity, type,
`requires_grad`, global state.

## Why is this bad?
Every recompilation costs a full compile; repeated ones end at the recompile limit and an eager fallback.

## Example
```python
f(torch.ones(2, requires_grad=True))
f(torch.ones(2))     # requires_grad differs: recompile
```

## Use instead
Keep the guarded property stable across calls (the failing guard is shown with the finding).
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import frame_label

RULE = Rule("RCP006", "guard-recompile", "warning", "Recompiled because a guard failed", claims="recompiles", priority=999)


def matches(r, f) -> bool:
    return True  # last: every recompile no other rule claims


def message(r, f) -> str:
    return f"{frame_label(r)} recompiled: guard failed: {f.text if f else 'unknown guard'}"


def fix(r, f) -> str:
    return "keep the guarded property stable across calls"
