"""## What it does
Finds a program stopped by CUDA graphs (`mode="reduce-overhead"`): an output of a compiled call was read after a
later call replayed the graph and overwrote it ("accessing tensor output of CUDAGraphs that has been overwritten by
a subsequent run"). The finding is on the compiled call whose output was kept.

## Why is this bad?
The program does not run to its end. CUDA graphs reuse their output memory on every replay; torch treats each
call of a compiled function as a new step unless told otherwise.

## Example
```python
model = torch.compile(model, mode="reduce-overhead")
for x in batches:
    h1 = model(x)
    h2 = model(h1 * 0.5)     # a new step: h1's memory is reused
    loss = (h1 + h2).sum()   # RuntimeError: accessing tensor output of CUDAGraphs that has been overwritten
```

## Use instead
```python
for x in batches:
    torch.compiler.cudagraph_mark_step_begin()   # one step per iteration: both calls' outputs stay valid
    h1 = model(x)
    h2 = model(h1 * 0.5)
```
or clone the output you keep (`h1 = model(x).clone()`).
"""

from tdiag.analyzer.model import Site
from tdiag.analyzer.rules import Rule

RULE = Rule("CRS007", "cudagraph-output-overwritten", "error", "A CUDA-graph output was read after a replay overwrote it",
            suggester="crash", claims="crashes", priority=10)
KIND = "cudagraph_overwritten"
OVERWRITTEN = ("accessing tensor output of CUDAGraphs that has been overwritten",
               "accessing gradient tensor output of CUDAGraphs that has been overwritten")


def matches(crash) -> bool:
    return any(text in crash.message for text in OVERWRITTEN)


def describe(crash, ctx) -> None:
    crash.site = crash.call_site  # the line that read the overwritten output
    crash.policy = 'mode="reduce-overhead"'


def message(crash, ctx) -> str:
    read, call = crash.site, site(crash, ctx)
    where = f" at {read.path}:{read.line}" if read is not None and read != call else ""
    return (f"an output of this compiled call (CUDA graphs, {crash.policy}) was read{where} after a later call "
            "replayed the graph and overwrote it")


def fix(crash, ctx) -> str:
    return ("call torch.compiler.cudagraph_mark_step_begin() at the start of each iteration, before the compiled "
            "calls, or clone the output you keep (out = model(x).clone())")


def site(crash, ctx) -> Site | None:
    """The compiled call in the function that read the output: the user line that entered torch.compile there."""
    read = crash.site
    if read is None:
        return None
    calls = [f.call_site for f in ctx.analysis.frames if f.call_site is not None and f.call_site.path == read.path
             and f.call_site.function == read.function and f.rank == crash.rank]
    before = [c for c in calls if c.line <= read.line]
    return min(before or calls, key=lambda s: s.line, default=None)
