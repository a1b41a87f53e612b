"""## What it does
Finds recompilations caused by a tensor size (or stride) that differs from the one a compiled graph was
specialised for, e.g. the batch size changing (`tensor 'x' size mismatch at index 0. expected 4, actual 8`).

## Why is this bad?
Each new size compiles the frame again (seconds to minutes with Inductor) until automatic dynamic shapes kick
in or the recompile limit is hit, after which the frame runs eagerly.

## Example
```python
for batch in (4, 8):
    loss = compiled(torch.randn(batch, 8))
```

## Use instead
```python
x = torch.randn(batch, 8)
torch._dynamo.mark_dynamic(x, 0)   # compile once for any batch size
loss = compiled(x)
```
or `torch.compile(model, dynamic=True)`; pad or bucket when the sizes come from a small set.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import guard_kinds

RULE = Rule("RCP001", "shape-recompile", "warning", "Recompiled because a tensor size changed",
            suggester="mark_dynamic", claims="recompiles", priority=10,
            message="{frame} recompiled: {kind} of {subject}{dim} changed{values}",
            fix="{catalogue_fix}")  # catalogue/guards.toml
matches = guard_kinds("size", "stride", "rank")
