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
"""

from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._runtime_window import lead_window, ms_per_step, step_anchor

RULE = Rule("RUN002", "launch-bound", "warning", "The GPU sat idle most of the measured step: launch-bound")
MIN_IDLE = 0.5  # of the window


def check(ctx):
    runtime = lead_window(ctx)
    if runtime is None or runtime.device_busy_s is None or not runtime.window_s or not runtime.step_path:
        return []
    idle = max(runtime.window_s - runtime.device_busy_s, 0.0)
    share = idle / runtime.window_s
    if share < MIN_IDLE:
        return []
    return [
        RULE.finding(
            message=f"the GPU was idle {share:.0%} of each measured step of {runtime.step_function} "
            f"({ms_per_step(idle, runtime):.3g} ms of {ms_per_step(runtime.window_s, runtime):.3g} ms; busy "
            f"{ms_per_step(runtime.device_busy_s, runtime):.3g} ms): the host launches work slower than the GPU runs it",
            fix='compile with mode="reduce-overhead" (CUDA graphs: one launch per step), or use larger batches',
            **step_anchor(ctx, runtime), function=runtime.step_function, impact=share,
            evidence=RuntimeShareEvidence(
                seconds=round(idle, 6), share=round(share, 4), steps=runtime.steps, partial=runtime.partial,
                device_busy_s=runtime.device_busy_s,
            ),
        )
    ]
