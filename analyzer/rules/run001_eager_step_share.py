"""## What it does
Finds a measured step that spends a large share of its time outside compiled code in work the program could
compile: the optimizer step, a loss computed eagerly on the model's output (and the backward of those eager ops),
code between two compiled calls of one step, data movement there. The program's own input preparation is not
counted: what runs at the end of each step, after its last compiled code, from the first op that brings data in
(random or constructor ops such as `torch.randn`, a DataLoader fetch, a copy to the device) up to the next step's
first compiled call, together with the loop's own Python there. It is told apart by where in the step it ran,
relative to the compiled calls (the window's profiler events on the stepping thread), not by a list of op names.

## Why is this bad?
`torch.compile` only speeds up what it compiled. Time the step spends in the uncompiled optimizer step, in eager
ops on the model's output or in Python between compiled calls is paid in full on every step, and no graph-break fix
removes it. Making the inputs is the program's own work, not the model's: a compiled model fed by `torch.randn` or a
DataLoader is not a finding however long that takes.

## Example
```python
model = torch.compile(model)
for x, y in loader:                        # input preparation: not counted
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
that makes the step faster with the same output. Compute the loss, and the ops between compiled calls, inside the
compiled function. Data movement between compiled calls: move tensors with `non_blocking=True` from pinned memory.

## Ranking
The finding is about the whole step, not one cause at one line: it never outranks a graph break or recompilation of
the same run that it does not measurably outweigh. A recompile's cost is compile seconds, paid once, and a finding
the window could not cost has no figure: neither compares with time per step, so RUN001 ranks after them. A
measured break's cost is a lower bound on what removing it saves (docs/cost-vs-saving.md measured 3.8x to 40x, and
more): RUN001 ranks before it only when its movable time is more than `BREAK_SAVING_FACTOR` (4) times the break's
cost (a break that ran only outside the measured steps, in a setup function, costs 0 there). Where it yields, it
comes after every fixable finding of the run, and its evidence's `ranked_after` names what it yielded to
(analyzer/ranking.py).
"""

from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._runtime_window import lead_window, movable_parts, ms_per_step, step_anchor
from tdiag.analyzer.runtime import INPUT_PREPARATION

RULE = Rule("RUN001", "eager-step-share", "warning", "A large share of the measured step runs outside compiled code",
            cost="eager_other",
            suggester="optimizer_step",
            whole_step=True)
# of the window, outside compiled graphs and graph breaks' eager parts, in work that can move (input preparation aside)
MIN_SHARE = 0.25
MIN_MS_PER_STEP = 0.5  # below this the step is a toy loop around tiny compiled calls: nothing to move
FIXES = {
    # the optimizer's fix depends on the device: optimizer_fix(device)
    "eager backward": "compute the loss and the ops on the model's output inside the compiled function, so their "
    "backward is compiled too",
    "python": "compile the whole step (the model call, the loss and what runs on their outputs): the Python around "
    "its compiled calls runs eagerly on every step",
    "data movement": "the copies between compiled calls: move tensors from pinned memory with non_blocking=True, or "
    "keep them on the device",
    "loss": "compute the loss inside the compiled function",
    "eager ops": "compute the ops on the compiled calls' outputs (after them, or between two of them) inside the "
    "compiled function",
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
COMPILE_MORE = ("eager backward", "loss", "eager ops", "python")  # parts whose fix is to compile more of the step


def check(ctx):
    runtime = lead_window(ctx)
    if runtime is None or not runtime.eager_parts or not runtime.window_s or not runtime.step_path:
        return []
    if _compiled_code_runs_eagerly(ctx.analysis):
        return []  # the eager time is the compiled function itself, run eagerly: its BRK006/RCP005 finding says why
    parts = movable_parts(runtime)  # outside compiled frames, input preparation aside; breaks' eager parts not in it
    if parts.get("eager backward") and _inference_only(ctx.analysis, runtime.step_function):
        # the compiled function runs without grad (an evaluation step) while a backward runs between its calls: an
        # uncompiled training loop sits between them, which no code moved into this function could take (blind
        # batch 6's clean control: a compiled validation_step between eager training epochs)
        return []
    if _backward_never_compiles(ctx.analysis, runtime.step_function):
        # backend="eager": Dynamo's graphs run op by op, as eager does, and no backward is ever compiled, so moving
        # code into the compiled function saves nothing (blind batch 9: "compute the loss inside the compiled
        # function, so their backward is compiled too" for a model that computed its loss); the levers that do not
        # compile (the optimizer's implementation, the copies, the collectives) stay
        parts = {name: v for name, v in parts.items() if name not in COMPILE_MORE}
    if ctx.analysis.breaks:
        # the backward of the ops that run eagerly between graph pieces is eager too: with breaks in the compiled
        # code it is theirs, not the loss's (blind batch 5: a hook's .item() cut the model at every ReLU)
        parts.pop("eager backward", None)
    other = sum(parts.values())
    if not parts:
        return []
    share = other / runtime.window_s
    if share < MIN_SHARE or ms_per_step(other, runtime) < MIN_MS_PER_STEP:
        return []
    parts = dict(sorted(parts.items(), key=lambda kv: -kv[1]))
    top = next(iter(parts))
    listed = ", ".join(f"{name} {ms_per_step(v, runtime):.3g} ms" for name, v in parts.items())
    preparing = runtime.eager_parts.get(INPUT_PREPARATION, 0.0)
    not_counted = (f"; the program's own input preparation (before each step's first compiled call, "
                   f"{ms_per_step(preparing, runtime):.3g} ms) is not counted"
                   if ms_per_step(preparing, runtime) >= 0.01 else "")
    large = [name for name in parts if _fix(name, parts, runtime.device) and parts[name] >= 0.2 * other]
    if "eager backward" in large and "loss" in large:  # the eager backward's fix is the loss's, and says why
        large.remove("loss")
    fixes = [_fix(name, parts, runtime.device) for name in large][:2]
    return [
        RULE.finding(
            message=f"{share:.0%} of each measured step of {runtime.step_function} ({ms_per_step(other, runtime):.3g} "
            f"ms of {ms_per_step(runtime.window_s, runtime):.3g} ms) runs outside compiled code: {listed}" + not_counted
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


def _inference_only(a, function: str | None) -> bool:
    """Every graph of ``function`` was compiled with grad mode off (torch's global-state guard says so)."""
    states = [g for g in a.graphs if g.code_name == function]
    return bool(states) and all(any(guard.kind == "GLOBAL_STATE" and '"grad_mode":false' in guard.text
                                    for guard in g.guards) for g in states)


def _backward_never_compiles(a, function: str | None) -> bool:
    """The graphs ran as Dynamo captured them, without AOTAutograd (backend="eager"): no backward is ever compiled.
    Any sign of AOTAutograd or Inductor (its graphs, a cache lookup, kernels, their compile stages) says otherwise."""
    graphs = [g for g in a.graphs if g.code_name == function] or a.graphs
    return bool(graphs) and not any(g.aot or g.cache or g.kernels or g.output_code_refs or "inductor" in g.stages
                                    or "aot_autograd" in g.stages for g in graphs)


def _compiled_code_runs_eagerly(a) -> bool:
    """Dynamo gave up on a whole function (a break it cannot resume from, the recompile limit): its time is outside
    compiled code because the compiled function runs eagerly, which moving more code into it cannot change."""
    return any(b.frame_skipped for b in a.breaks) or any(f.hit_recompile_limit for f in a.frames)


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
