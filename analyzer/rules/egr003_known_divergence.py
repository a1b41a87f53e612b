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

import re

from tdiag.analyzer.eager_divergences import uses_in
from tdiag.analyzer.evidence import KnownDivergenceEvidence
from tdiag.analyzer.paths import is_library_display
from tdiag.analyzer.rules import Rule

# a graph's readable code names the user line each node came from: "# File: /path/train.py:24 in forward, code: ..."
NODE_SOURCE = re.compile(r"# File: (.+?):(\d+) in ")
RULE = Rule("EGR003", "known-divergence", "error",
            "A Python object Dynamo models differently from CPython is used inside compiled code")


def check(ctx):
    analysis = ctx.analysis
    traced: dict[str, set[int]] = {}
    for frame in analysis.frames:
        traced.setdefault(frame.path, set()).add(frame.line)
    recorded: dict[str, str | None] = {}  # the graph code's absolute path -> the recorded source it is, once each
    for graph in analysis.graphs:  # the lines the graphs' nodes came from: functions Dynamo inlined too
        code = analysis.code.get(graph.graph_code_ref) if graph.graph_code_ref else None
        for where, line in set(NODE_SOURCE.findall(code if isinstance(code, str) else "")):
            if where not in recorded:
                recorded[where] = next((p for p in analysis.sources if where == p or where.endswith("/" + p)), None)
            if recorded[where] is not None:
                traced.setdefault(recorded[where], set()).add(int(line))
    findings = []
    for path, lines in traced.items():
        text = analysis.sources.get(path)
        if not text or is_library_display(path):
            continue
        for use in uses_in(text, lines):
            findings.append(RULE.finding(
                message=use.entry.message.format(**use.words),
                fix=use.entry.fix.format(**use.words),
                path=path, line=use.used_line,
                evidence=KnownDivergenceEvidence(entry=use.entry.id, holder=use.holder,
                                                 made_at=f"{path}:{use.made_line}"),
            ))
    return findings
