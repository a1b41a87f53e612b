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
from tdiag.analyzer.rules._recompiles import frame_label, recompile_findings, subject_name

RULE = Rule("RCP003", "mode-recompile", "warning", "Recompiled because train()/eval() or a flag flipped",
            suggester="mode_flip")


def check(ctx):
    return recompile_findings(
        ctx,
        RULE,
        lambda r, f: f"{frame_label(r)} recompiled: {subject_name(f)} flipped"
        + (f" (compiled for {f.expected})" if f and f.expected else ""),
        lambda r, f: "compile one function per mode (train/eval), or keep the flag fixed",
    )
