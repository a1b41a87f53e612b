"""## What it does
Finds shapes that automatic dynamic made dynamic in this process after a recompile: a decision the next process
learns again, paying the static compile, the recompile and their cache misses on every start.

## Why is this bad?
Automatic dynamic shapes remembers its decision in memory only (unless torch's persistent profile is on): every
new process compiles the graph static first, recompiles it dynamic when the size changes, and the warm cache holds
both graphs.

## Example
```python
for batch in (8, 12, 16):
    compiled(torch.randn(batch, 64))   # compiled for 8, then again with a dynamic batch: in every process
```

## Use instead
`torch._dynamo.mark_dynamic(x, 0)` before the first call, so the first compile is the dynamic one; or keep the
automatic-dynamic profile across processes (`torch.compiler.save_cache_artifacts()` carries it with the mega-cache).
"""

import re

from tdiag.analyzer.evidence import CompileCacheEvidence
from tdiag.analyzer.rules import Rule

RULE = Rule("CCH005", "dynamic-shapes-relearned", "info", "Automatic dynamic shapes are learned afresh by each process")
DYNAMO_NAME = re.compile(r"\b[LG]\[['\"](?P<name>[^'\"]+)['\"]\]")


def check(ctx):
    findings = []
    for frame in ctx.analysis.frames:
        if not frame.automatic_dynamic or len(frame.variants) < 2:
            continue
        graphs = [g for g in ctx.analysis.graphs if g.rank == frame.rank and g.compile_id in frame.variants]
        if not graphs:
            continue
        seconds = round(sum(g.compile_time_s for g in graphs[:-1]), 3)  # what compiling static first cost
        decisions = ", ".join(sorted({DYNAMO_NAME.sub(r"\g<name>", d) for d in frame.automatic_dynamic}))
        site, library = ctx.graph_anchor(graphs[0])
        findings.append(RULE.finding(
            message=f"{frame.code_name}: {decisions} was made dynamic in this process after a recompile; every new "
                    f"process compiles it static first again ({seconds:.1f}s)",
            fix="mark the dimension dynamic before the first call (torch._dynamo.mark_dynamic), or keep the "
                "automatic-dynamic profile across processes (torch.compiler.save_cache_artifacts / "
                "load_cache_artifacts)",
            path=site.path, line=site.line, function=frame.code_name, library_frame=library,
            compile_ids=list(frame.variants), graph_keys=[g.key for g in graphs], impact=seconds,
            evidence=CompileCacheEvidence(cache="automatic_dynamic", state="miss", cause=decisions, seconds=seconds,
                                          graphs=len(graphs)),
        ))
    return findings
