"""## What it does
Finds a measured step that spends a large share of its time outside compiled code and outside any graph break's
eager part: the optimizer step, an eager loss, the backward of ops that ran eagerly, data movement, Python.

## Why is this bad?
`torch.compile` only speeds up what it compiled. Time the step spends in the uncompiled optimizer step, in eager
ops around the model or in Python is paid in full on every step, and no graph-break fix removes it. The window
measured it (profiler events on the stepping thread say what ran there); this finding says where it went.

## Example
```python
model = torch.compile(model)
for x, y in loader:
    loss = F.cross_entropy(model(x), y)    # the loss, outside the compiled model
    loss.backward()
    opt.step()                             # a for-loop over every parameter, eager
    opt.zero_grad()
```

## Use instead
Compile the optimizer step too (`torch.compile(opt.step)`, or a compiled `train_step` holding forward, loss,
backward and step), use a `foreach=True` or `fused=True` optimizer, and move per-step work (the loss, data
preparation) into the compiled region. Data movement: move batches with `non_blocking=True` from pinned memory.
"""

from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._runtime_window import lead_window, ms_per_step, step_anchor

RULE = Rule("RUN001", "eager-step-share", "warning", "A large share of the measured step runs outside compiled code",
            cost="eager_other")
MIN_SHARE = 0.25  # of the window, outside compiled graphs and graph breaks' eager parts
MIN_MS_PER_STEP = 0.5  # below this the step is a toy loop around tiny compiled calls: nothing to move
FIXES = {
    "optimizer": "compile the optimizer step (torch.compile(opt.step), or one compiled train_step), or use a "
    "foreach=True / fused=True optimizer",
    "eager backward": "move the loss and the ops around the model into the compiled region, so their backward is "
    "compiled too",
    "python": "move the per-step Python work into the compiled region (compile the whole training step)",
    "data movement": "move batches from pinned memory with non_blocking=True, or prepare them in DataLoader workers",
    "loss": "compute the loss inside the compiled function",
    "eager ops": "move these eager ops into the compiled region",
}


def check(ctx):
    runtime = lead_window(ctx)
    if runtime is None or not runtime.eager_parts or not runtime.window_s or not runtime.step_path:
        return []
    other = sum(runtime.eager_parts.values())  # outside compiled frames; breaks' eager parts are not in it
    share = other / runtime.window_s
    if share < MIN_SHARE or ms_per_step(other, runtime) < MIN_MS_PER_STEP:
        return []
    parts = dict(sorted(runtime.eager_parts.items(), key=lambda kv: -kv[1]))
    top = next(iter(parts))
    listed = ", ".join(f"{name} {ms_per_step(v, runtime):.3g} ms" for name, v in parts.items())
    fixes = [FIXES[name] for name in parts if name in FIXES and parts[name] >= 0.2 * other][:2]
    return [
        RULE.finding(
            message=f"{share:.0%} of each measured step of {runtime.step_function} ({ms_per_step(other, runtime):.3g} "
            f"ms of {ms_per_step(runtime.window_s, runtime):.3g} ms) runs outside compiled code: {listed}"
            + (f" (partial window of {runtime.steps} steps)" if runtime.partial else ""),
            fix="; ".join(fixes) or FIXES.get(top, FIXES["python"]),
            **step_anchor(ctx, runtime), function=runtime.step_function,
            impact=share,
            evidence=RuntimeShareEvidence(
                seconds=round(other, 6), share=round(share, 4), steps=runtime.steps, partial=runtime.partial,
                parts_ms_per_step={k: round(ms_per_step(v, runtime), 4) for k, v in parts.items()},
            ),
        )
    ]
