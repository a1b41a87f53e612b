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

# Claims last: every recompile no other rule claims.
RULE = Rule("RCP006", "guard-recompile", "warning", "Recompiled because a guard failed", claims="recompiles",
            priority=999, message="{frame} recompiled: guard failed: {guard}",
            fix="keep the guarded property stable across calls")


def matches(r, f) -> bool:
    return True
