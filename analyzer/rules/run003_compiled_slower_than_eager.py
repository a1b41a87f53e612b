"""## What it does
Compares the measured compiled step with the same step of the same program run with torch.compile disabled
(`tdiag run --vs-eager`: the program runs again with `TORCH_COMPILE_DISABLE=1` under the same runtime window) and
finds a compiled step that is slower than eager beyond the spread of both sides' per-step times. The message says
how sure that is (both interquartile ranges and the share of step pairs in which the compiled step took longer)
and where the compiled step's time goes.

## Why is this bad?
Compiling was meant to make the step faster; here every step pays for it instead. A tiny step dominated by
per-call overhead (Dynamo's cache lookup and guards, a backend that fuses nothing) or broken into many graphs (each
break re-enters Dynamo and runs a resume function) costs more compiled than the eager ops it replaces.

## Example
```python
@torch.compile(backend="aot_eager")
def step(x):
    x = x + 1
    log_stats(x)                # a graph break, every step
    return x * 0.5

for _ in range(1000):
    x = step(x)                 # a few microseconds of work, tens of microseconds of overhead
```

## Use instead
What to do depends on where the compiled step's time goes (the message names the largest part):
graph breaks and eager code around the graphs: remove the breaks (the BRK findings) and compile the code around
the graphs into the step; the compiled graphs themselves: compile with Inductor (eager and aot_eager fuse nothing)
or compile a larger region so the overhead is paid once per step; guard checks: compile the whole step rather than
a tiny function called many times inside it; compiles inside the window: stop the recompiles (the RCP findings).
A step this small may simply be better left uncompiled.
"""

from tdiag.analyzer import eager_compare
from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._runtime_window import lead_window, step_anchor

RULE = Rule("RUN003", "compiled-slower-than-eager", "warning",
            "The measured compiled step is slower than the same step run eagerly")


def check(ctx):
    runtime = lead_window(ctx)
    if runtime is None or not runtime.steps or not runtime.step_path:
        return []
    vs = ctx.vs_eager
    if vs is None or vs.verdict != "slower" or not vs.compiled_step_s or not vs.eager_step_s:
        return []
    part, cause = eager_compare.where_time_goes(runtime, len(ctx.break_sites))
    extra = (vs.compiled_step_s - vs.eager_step_s) * runtime.steps  # what compiling costs the window's steps
    return [
        RULE.finding(
            message=f"the compiled step of {runtime.step_function} is {vs.compiled_step_s / vs.eager_step_s:.1f}x "
            f"slower than eager ({vs.compiled_step_s * 1e3:.3g} ms vs {vs.eager_step_s * 1e3:.3g} ms per step, "
            f"medians; {eager_compare.sureness(vs)}); {cause}",
            fix=eager_compare.FIXES.get(part or "", eager_compare.FIXES["compiled graphs"]),
            **step_anchor(ctx, runtime), function=runtime.step_function,
            impact=round(1 - vs.eager_step_s / vs.compiled_step_s, 4),
            evidence=RuntimeShareEvidence(
                seconds=round(extra, 6), share=round(extra / runtime.window_s, 4) if runtime.window_s else 0.0,
                steps=runtime.steps, partial=runtime.partial,
            ),
        )
    ]
