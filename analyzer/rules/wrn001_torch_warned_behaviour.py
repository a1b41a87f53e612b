"""## What it does
Turns a warning torch prints about what the compiled code does differently, or cannot do, at the user's line
into a finding at that line, in plain words, with what to change. torch's own warning is quoted as torch's. The
warnings tdiag has words for are listed in `analyzer/torch_warnings.json`: a `functools.lru_cache` wrapper
Dynamo ignores, global module hooks that fire twice for `torch.compile(module)`, a Python constant as
`torch.cond`'s predicate, TF32 tensor cores left unused, a CUDA graph kept off its fast path by a pending
backward, complex-number ops Inductor does not generate code for.

## Why is this bad?
torch decides these silently while compiling and says so once, in a warning that points into torch's own files
(`torch/_dynamo/variables/functions.py:2590`) among the rest of stderr. The program runs on, possibly computing
something else than it does in eager (a cache that is no longer used, hooks that run twice), or slower than it
could.

## Example
```python
@functools.lru_cache(maxsize=None)
def scale_for(n):
    return 1.0 / n

@torch.compile
def step(x):
    return x * scale_for(4)     # Dynamo ignores the cache wrapper and traces scale_for
```

## Use instead
```python
scale = scale_for(4)            # the cache is used, outside the compiled code

@torch.compile
def step(x, scale):
    return x * scale
```
or drop `@functools.lru_cache` from a helper that does not need it.
"""

from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._warnings import has_break_at, warning_findings

RULE = Rule("WRN001", "torch-warned-behaviour", "warning",
            "torch warned that compiled code behaves differently or misses a speed-up at this line",
            suggester="warning_setting")


def check(ctx):
    known = [w for w in ctx.torch_warnings
             if w.entry is not None and not (w.entry.shown_as_break and has_break_at(ctx, w))]
    return warning_findings(RULE, ctx, known, message, fix)


def message(w) -> str:
    return f"{w.entry.message.format(**w.words())} ({w.attributed})"


def fix(w) -> str:
    return w.entry.fix.format(**w.words())
