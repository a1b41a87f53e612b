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

Under FSDP2 or DDP much of that time is the framework's: its collectives (all-gather, reduce-scatter, all-reduce:
issued and waited for on the stepping thread, labelled `communication`) and FSDP's own hooks around each compiled
block (`fsdp hooks`, run eagerly by design). Compiling more of the step does not remove them; the distributed knobs
do.

## Use instead
Communication: FSDP2's `fully_shard(block, reshard_after_forward=False)` (no second all-gather in backward, more
memory), explicit prefetching (`block.set_modules_to_forward_prefetch([...])`,
`block.set_modules_to_backward_prefetch([...])`), fewer and larger collectives (shard groups of blocks with one
`fully_shard` call); DDP's `bucket_cap_mb`; with gradient accumulation, `model.set_requires_gradient_sync(False)`
(FSDP2) or `model.no_sync()` (DDP) on the steps between syncs.

Otherwise compile the optimizer step too (torch's recipe: `@torch.compile(fullgraph=False) def opt_step():
opt.step()`, the learning rate a tensor under an LR scheduler; or a compiled `train_step` holding forward, loss,
backward and step), or choose the optimizer's implementation by device: on a GPU `fused=True` (one kernel for every
parameter); on a CPU `foreach=True` (the default there is a Python loop over the parameters). `fused=True` on a CPU
is measured, never assumed: Adam's fused CPU kernel measured 10x slower than the default over 50 small tensors on one
2-core machine and 8x faster on another. `tdiag fix --verify` tries these patches in that order and keeps the first
that makes the step faster with the same output. Move per-step work (the loss, data preparation) into the compiled
region. Data movement: move batches with `non_blocking=True` from pinned memory.
"""

from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._runtime_window import lead_window, ms_per_step, step_anchor

RULE = Rule("RUN001", "eager-step-share", "warning", "A large share of the measured step runs outside compiled code",
            cost="eager_other",
            suggester="optimizer_step")
MIN_SHARE = 0.25  # of the window, outside compiled graphs and graph breaks' eager parts
MIN_MS_PER_STEP = 0.5  # below this the step is a toy loop around tiny compiled calls: nothing to move
FIXES = {
    # the optimizer's fix depends on the device: optimizer_fix(device)
    "eager backward": "move the loss and the ops around the model into the compiled region, so their backward is "
    "compiled too",
    "python": "move the per-step Python work into the compiled region (compile the whole training step)",
    "data movement": "move batches from pinned memory with non_blocking=True, or prepare them in DataLoader workers",
    "loss": "compute the loss inside the compiled function",
    "eager ops": "move these eager ops into the compiled region",
    "fsdp hooks": "FSDP2's hooks run eagerly around each compiled block (by design): fewer, larger fully_shard "
    "units (shard groups of blocks together) mean fewer hook calls",
}
COMM_FIXES = {  # the distributed knobs, for the framework the step's time was measured in
    "fsdp": "overlap and shrink FSDP2's collectives: fully_shard(block, reshard_after_forward=False) (no all-gather "
    "again in backward, more memory), explicit prefetching (block.set_modules_to_forward_prefetch([next_block]), "
    "set_modules_to_backward_prefetch), fewer and larger collectives (shard groups of blocks with one fully_shard "
    "call); with gradient accumulation, model.set_requires_gradient_sync(False) between syncs",
    "other": "overlap and shrink the collectives: DDP's bucket_cap_mb (fewer, larger all-reduces), model.no_sync() "
    "between syncs with gradient accumulation; collectives issued with async_op=True and waited for late",
}
COMM_PARTS = ("communication", "fsdp hooks")


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
    fixes = [_fix(name, parts, runtime.device) for name in parts
             if _fix(name, parts, runtime.device) and parts[name] >= 0.2 * other][:2]
    return [
        RULE.finding(
            message=f"{share:.0%} of each measured step of {runtime.step_function} ({ms_per_step(other, runtime):.3g} "
            f"ms of {ms_per_step(runtime.window_s, runtime):.3g} ms) runs outside compiled code: {listed}"
            + (f" (partial window of {runtime.steps} steps)" if runtime.partial else ""),
            fix="; ".join(fixes) or _fix(top, parts, runtime.device) or FIXES["python"],
            **step_anchor(ctx, runtime), function=runtime.step_function,
            impact=share,
            evidence=RuntimeShareEvidence(
                seconds=round(other, 6), share=round(share, 4), steps=runtime.steps, partial=runtime.partial,
                parts_ms_per_step={k: round(ms_per_step(v, runtime), 4) for k, v in parts.items()},
            ),
        )
    ]


RECIPE = "@torch.compile(fullgraph=False) on a function that calls opt.step(), as torch's recipe does"


def optimizer_fix(device: str | None) -> str:
    """The optimizer's fix on the device the window measured: fused kernels pay on a GPU; on a CPU the fused Adam
    measured 10x slower than the default loop and foreach faster (2 cores, torch 2.13), so it is never offered there."""
    if device == "cuda":
        return f"use fused=True (one kernel for every parameter), or compile the optimizer step ({RECIPE})"
    return f"use foreach=True (one op per group of tensors, not a loop), or compile the optimizer step ({RECIPE})"


def _fix(part: str, parts: dict[str, float], device: str | None = None) -> str | None:
    """The fix for one part of the step's eager time. Under FSDP or DDP (collectives measured), Python between the
    compiled blocks is mostly the framework's own: "compile the whole step" is not offered for it."""
    distributed = any(parts.get(name, 0) > 0 for name in COMM_PARTS)
    if part == "communication":
        return COMM_FIXES["fsdp" if parts.get("fsdp hooks", 0) > 0 else "other"]
    if part == "python" and distributed:
        return "the Python between compiled blocks (the training loop, the framework's Python around its hooks): " \
            "keep per-step Python out of the loop (no .item() every step); with FSDP2, fewer and larger fully_shard " \
            "units"
    if part == "optimizer":
        return optimizer_fix(device)
    return FIXES.get(part)
