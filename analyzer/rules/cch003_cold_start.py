"""## What it does
Finds a cold start: every FX graph cache lookup of the run missed, so every graph was compiled from scratch, and
says how many seconds a warm start would save, from torch's own figures (`time_taken_ns` of each miss).

## Why is this bad?
A new machine, a new container, a fresh rank or a CI job starts with an empty cache directory and pays the whole
compile time, though the same program compiled the same graphs before elsewhere.

## Example
```python
model = torch.compile(model)   # each job on a fresh machine: an empty /tmp/torchinductor_$USER
```

## Use instead
After the first steps, `artifacts = torch.compiler.save_cache_artifacts()` and store `artifacts[0]` (the
"mega-cache": FX graph, AOTAutograd, Triton and automatic-dynamic entries in one blob); on the next machine or rank,
`torch.compiler.load_cache_artifacts(blob)` before the first compile. Or keep `TORCHINDUCTOR_CACHE_DIR` on storage
that outlives the machine.
"""

from tdiag.analyzer.evidence import CompileCacheEvidence
from tdiag.analyzer.rules import Rule

RULE = Rule("CCH003", "cold-compile-start", "info", "Every graph was compiled from scratch (a cold cache)")
MIN_SECONDS = 1.0  # below this a warm start saves nobody anything worth a change


def check(ctx):
    a = ctx.analysis
    cc = a.summary.compile_cache
    if not cc.recorded or cc.fx_graph is None or cc.fx_graph.hit or not cc.fx_graph.miss:
        return []
    if cc.seconds_missed < MIN_SECONDS:
        return []
    graphs = [g for g in a.graphs if any(o.cache == "fx_graph" and o.state == "miss" for o in g.cache_outcomes)]
    if not graphs:
        return []
    site, library = ctx.graph_anchor(graphs[0])
    return [RULE.finding(
        message=f"cold start: all {cc.fx_graph.miss} FX graph cache lookups missed; compiling them took "
                f"{cc.seconds_missed:.1f}s, which a warm start would save",
        fix="save the compiled artifacts once (torch.compiler.save_cache_artifacts() after the first steps) and "
            "load them before compiling on a new machine or rank (torch.compiler.load_cache_artifacts), or keep "
            "TORCHINDUCTOR_CACHE_DIR on persistent storage",
        path=site.path, line=site.line, function=graphs[0].code_name, library_frame=library,
        compile_ids=[g.compile_id for g in graphs], graph_keys=[g.key for g in graphs],
        impact=cc.seconds_missed,
        evidence=CompileCacheEvidence(cache="fx_graph", state="miss", cause="cold cache", seconds=cc.seconds_missed,
                                      graphs=len(graphs)),
    )]
