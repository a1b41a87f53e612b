"""## What it does
Finds a measured CUDA step in which the GPU sat idle most of the time: the host could not launch work fast enough
(many small kernels, Python and framework overhead between them), so the step is launch-bound.

## Why is this bad?
A launch-bound step does not get faster with faster kernels: the GPU waits for the CPU. Each kernel launch costs
microseconds of host time whatever the kernel does; a step of hundreds of small kernels is bounded by that.

## Example
```python
model = torch.compile(model)            # default mode: one launch per kernel, every step
for x in batches:                        # small batch: kernels of a few microseconds each
    model(x)
```

## Use instead
`torch.compile(model, mode="reduce-overhead")` records the step's kernels once into CUDA graphs and replays them
with one launch (inputs must keep their shapes, or settle into a few). Larger batches also amortise the launches.
The cost shown is the device's idle time in the step: the most CUDA graphs can win back.

With CUDA graphs already on, the idle time is what they leave, and the finding says which:
re-recordings or skips (a graph that records again, or runs without CUDA graphs: the CGR findings say why),
eager code between the replays (the optimizer step, the loss, Python: compile it too, or use a fused optimizer),
or a step too small to fill the GPU (its kernels, replayed, take less time than the host's work around them: a
larger batch is the honest answer).
"""

from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._runtime_window import lead_window, movable_parts, ms_per_step, step_anchor

RULE = Rule("RUN002", "launch-bound", "warning", "The GPU sat idle most of the measured step: launch-bound",
            suggester="launch_bound")
MIN_IDLE = 0.5  # of the window


def check(ctx):
    runtime = lead_window(ctx)
    if runtime is None or runtime.device_busy_s is None or not runtime.window_s or not runtime.step_path:
        return []
    idle = max(runtime.window_s - runtime.device_busy_s, 0.0)
    share = idle / runtime.window_s
    if share < MIN_IDLE:
        return []
    graphed = cudagraphs_on(ctx.analysis)
    head = (f"the GPU was idle {share:.0%} of each measured step of {runtime.step_function} "
            f"({ms_per_step(idle, runtime):.3g} ms of {ms_per_step(runtime.window_s, runtime):.3g} ms; busy "
            f"{ms_per_step(runtime.device_busy_s, runtime):.3g} ms)")
    if graphed:  # reduce-overhead is on: its advice would be what the program already does
        why, fix = what_cudagraphs_leave(ctx.analysis, runtime, idle)
        message = f"{head} with CUDA graphs on: {why}"
    else:
        message = f"{head}: the host launches work slower than the GPU runs it"
        fix = 'compile with mode="reduce-overhead" (CUDA graphs: one launch per step), or use larger batches'
    return [
        RULE.finding(
            message=message, fix=fix,
            **step_anchor(ctx, runtime), function=runtime.step_function, impact=share,
            evidence=RuntimeShareEvidence(
                seconds=round(idle, 6), share=round(share, 4), steps=runtime.steps, partial=runtime.partial,
                device_busy_s=runtime.device_busy_s,
                parts_ms_per_step={k: round(ms_per_step(v, runtime), 4) for k, v in runtime.eager_parts.items()},
            ),
        )
    ]


def cudagraphs_on(analysis) -> bool:
    """Whether torch recorded CUDA graphs for any compiled graph of the run (mode="reduce-overhead" is in place)."""
    return any(g.cudagraph is not None and g.cudagraph.status in ("recorded", "partial") for g in analysis.graphs)


def what_cudagraphs_leave(analysis, runtime, idle: float) -> tuple[str, str]:
    """Why the GPU still idles under CUDA graphs, and the fix, from what the window and the record measured:
    recordings inside the window, graphs run without CUDA graphs, eager time between replays, else a small step."""
    skipped = [g for g in analysis.graphs if g.cudagraph is not None and g.cudagraph.skips]
    movable = movable_parts(runtime)  # the program's own input preparation is never "move into the compiled step"
    eager = sum(movable.values())
    if runtime.recording_s >= 0.2 * idle:
        return (f"{ms_per_step(runtime.recording_s, runtime):.3g} ms/step of it is CUDA graphs recording again "
                "inside the window (new input shapes or addresses)",
                "keep the step's input shapes to a few sizes (pad or bucket them, drop_last=True) so the graphs "
                "replay; see the CGR findings for what made torch record again")
    if skipped:
        kinds = sorted({s.kind.replace("_", " ") for g in skipped for s in g.cudagraph.skips})
        return (f"{len(skipped)} compiled graph(s) run without CUDA graphs ({', '.join(kinds)})",
                "remove what makes torch skip CUDA graphs (the CGR001 finding names the line and torch's reason)")
    if eager >= 0.3 * idle:
        parts = sorted(movable.items(), key=lambda kv: -kv[1])
        listed = ", ".join(f"{name} {ms_per_step(v, runtime):.3g} ms" for name, v in parts[:3])
        top = parts[0][0]
        fix = ("use a fused optimizer (fused=True), or compile the optimizer step (@torch.compile(fullgraph=False) "
               "on a function that calls opt.step(), as torch's recipe does)" if top == "optimizer"
               else "move the eager code between the replays into the compiled step")
        return f"eager code between the replays takes {ms_per_step(eager, runtime):.3g} ms/step ({listed})", fix
    return ("the replayed step is too small to fill the GPU: its kernels take "
            f"{ms_per_step(runtime.device_busy_s or 0.0, runtime):.3g} ms/step and the host's work around one "
            "replay takes longer",
            "use a larger batch (more work per launch); CUDA graphs already remove the per-kernel launches")
