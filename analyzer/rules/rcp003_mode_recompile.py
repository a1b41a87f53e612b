"""## What it does
Finds recompilations caused by a mode flag: `module.training` flipping between `train()` and `eval()`, or a
boolean flag argument.

## Why is this bad?
Each flip can invalidate the cached graph; alternating modes every few steps keeps compiling (or, past the
limit, falls back to eager).

## Example
```python
model.train(); compiled(x)
model.eval();  compiled(x)
```

## Use instead
Compile once per mode (`train_step = torch.compile(model)` and a separate `eval_step`), or keep the mode fixed
inside the compiled region.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import guard_kinds

RULE = Rule("RCP003", "mode-recompile", "warning", "Recompiled because train()/eval() or a flag flipped",
            suggester="mode_flip", claims="recompiles", priority=30,
            message="{frame} recompiled: {subject} flipped{compiled_for}",
            fix="compile one function per mode (train/eval), or keep the flag fixed")
matches = guard_kinds("training", "grad_mode")
