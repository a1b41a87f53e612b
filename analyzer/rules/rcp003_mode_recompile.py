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
from tdiag.analyzer.rules._recompiles import frame_label, subject_name

RULE = Rule("RCP003", "mode-recompile", "warning", "Recompiled because train()/eval() or a flag flipped",
            suggester="mode_flip", claims="recompiles", priority=30)
KINDS = ("training", "grad_mode")  # GuardFailure.kind values this rule owns


def matches(r, f) -> bool:
    return f is not None and f.kind in KINDS


def message(r, f) -> str:
    return f"{frame_label(r)} recompiled: {subject_name(f)} flipped" + (
        f" (compiled for {f.expected})" if f and f.expected else ""
    )


def fix(r, f) -> str:
    return "compile one function per mode (train/eval), or keep the flag fixed"
