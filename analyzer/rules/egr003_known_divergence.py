"""## What it does
Finds a Python object whose behaviour Dynamo models differently from CPython used inside a compiled function: a
`collections.deque(maxlen=...)` appended to (Dynamo's deque does not drop the oldest item when full), a
`random.Random` instance drawn from (the draws are made once, while tracing, and compiled in as constants). The
objects are data: `analyzer/eager_divergences.json`, each entry checked on a real program.

## Why is this bad?
The compiled code computes something else than the same code run eagerly, and torch says nothing: a window that
should hold the last 5 scores holds 6, the "random" augmentation repeats the first call's numbers. Sometimes a shape
check fails instead, far from the cause.

## Example
```python
self.frames = collections.deque(maxlen=4)

@torch.compile
def act(self, obs):
    self.frames.append(obs)                  # compiled: the deque keeps 5 frames
    return self.qnet(torch.stack(list(self.frames)))
```

## Use instead
```python
    if len(self.frames) == 4:               # the maxlen it was made with (Dynamo's deque has no .maxlen)
        self.frames.popleft()               # the eviction the deque would do, written out
    self.frames.append(obs)
```
"""

from tdiag.analyzer.eager_divergences import uses_in_run
from tdiag.analyzer.evidence import KnownDivergenceEvidence
from tdiag.analyzer.rules import Rule

RULE = Rule("EGR003", "known-divergence", "error",
            "A Python object Dynamo models differently from CPython is used inside compiled code")


def check(ctx):
    return [RULE.finding(message=use.entry.message.format(**use.words), fix=use.entry.fix.format(**use.words),
                         path=path, line=use.used_line,
                         evidence=KnownDivergenceEvidence(entry=use.entry.id, holder=use.holder,
                                                          made_at=f"{path}:{use.made_line}"))
            for path, use in uses_in_run(ctx.analysis)]
