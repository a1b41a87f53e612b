"""## What it does
Finds ranks that missed the compile cache for a graph another rank of the same job hit with the same key.

## Why is this bad?
The key was the same, so the compiled graph existed: the ranks that missed do not share the cache directory (a
per-rank or per-node `TORCHINDUCTOR_CACHE_DIR`, node-local /tmp) and each pays the compile time while the job waits
for its slowest rank.

## Example
```shell
torchrun --nnodes 4 ... train.py   # each node compiles into its own /tmp/torchinductor_$USER
```

## Use instead
Point `TORCHINDUCTOR_CACHE_DIR` of every rank at shared storage, or ship the mega-cache
(`torch.compiler.save_cache_artifacts()` on one rank, `load_cache_artifacts()` on the others before compiling).
"""

from collections import defaultdict

from tdiag.analyzer.evidence import CompileCacheEvidence
from tdiag.analyzer.rules import Rule

RULE = Rule("CCH004", "rank-missed-shared-key", "warning", "A rank missed a compile cache key another rank hit")


def check(ctx):
    a = ctx.analysis
    if len(a.run.ranks) < 2:
        return []
    by_key = defaultdict(list)
    for graph in a.graphs:
        for outcome in graph.cache_outcomes:
            if outcome.cache == "fx_graph" and outcome.key and outcome.state in ("hit", "miss"):
                by_key[outcome.key].append((graph, outcome))
    missed = []  # (graph, outcome) on a rank that missed a key some other rank hit
    for items in by_key.values():
        hit_ranks = {g.rank for g, o in items if o.state == "hit"}
        missed += [(g, o) for g, o in items if o.state == "miss" and hit_ranks - {g.rank}]
    if not missed:
        return []
    graphs = list({g.key: g for g, _ in missed}.values())
    ranks = sorted({g.rank for g in graphs}, key=lambda r: (r is None, r))
    seconds = round(sum(o.seconds or 0.0 for _, o in missed), 3)
    site, library = ctx.graph_anchor(graphs[0])
    return [RULE.finding(
        message=f"rank(s) {', '.join(str(r) for r in ranks)} missed {len(missed)} FX graph cache lookup(s) that "
                f"another rank hit with the same key ({seconds:.1f}s compiling): they do not share its cache",
        fix="give every rank the same TORCHINDUCTOR_CACHE_DIR on shared storage, or load the mega-cache "
            "(torch.compiler.load_cache_artifacts) on each rank before compiling",
        path=site.path, line=site.line, function=graphs[0].code_name, library_frame=library,
        compile_ids=sorted({g.compile_id for g in graphs}), graph_keys=[g.key for g in graphs],
        impact=seconds,
        evidence=CompileCacheEvidence(cache="fx_graph", state="miss", cause="cache not shared between ranks",
                                      seconds=seconds, graphs=len(graphs),
                                      ranks={str(r): "miss" for r in ranks}),
    )]
