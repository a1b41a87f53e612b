"""## What it does
Finds graphs the FX graph cache or the AOTAutograd cache bypassed: torch could not compute a cache key for them
(a custom Inductor pass without a `uuid()`, freezing, an object it cannot pickle, an unsupported operator), and
says why in the user's words, with torch's own reason as evidence.

## Why is this bad?
A bypassed graph is never stored nor loaded: every process compiles it from scratch, however warm the cache
directory is.

## Example
```python
torch._inductor.config.post_grad_custom_post_pass = my_pass   # a plain function: no stable cache key
```

## Use instead
Make the pass a `torch._inductor.custom_graph_pass.CustomGraphPass` with a `uuid()`, or remove what the reason
names from the compiled region.
"""

from collections import defaultdict

from tdiag.analyzer.evidence import CompileCacheEvidence
from tdiag.analyzer.rules import Rule

RULE = Rule("CCH002", "compile-cache-bypass", "warning", "A compile cache bypassed a graph")


def check(ctx):
    groups = defaultdict(list)  # one finding per cause and compiled function
    for graph in ctx.analysis.graphs:
        for outcome in graph.cache_outcomes:
            if outcome.state == "bypass":
                groups[(outcome.words, graph.path, graph.code_name)].append((graph, outcome))
    findings = []
    for (words, _path, name), items in groups.items():
        graphs = list({g.key: g for g, _ in items}.values())
        seconds = round(sum(o.seconds or 0.0 for _, o in items) or sum(g.compile_time_s for g in graphs), 3)
        site, library = ctx.graph_anchor(graphs[0])
        caches = sorted({o.cache.replace("_", " ") for _, o in items})
        reason = items[0][1].reason
        findings.append(RULE.finding(
            message=f"{' and '.join(caches)} cache bypassed for {name} ({len(items)} lookup(s), "
                    f"{seconds:.1f}s compiling every run): {words}",
            fix=items[0][1].fix or "see torch's reason",
            path=site.path, line=site.line, function=name, library_frame=library,
            occurrences=len(items),
            compile_ids=[g.compile_id for g in graphs], graph_keys=[g.key for g in graphs],
            impact=seconds,
            evidence=CompileCacheEvidence(cache=items[0][1].cache, state="bypass", cause=words or "",
                                          torch_reason=reason, seconds=seconds, graphs=len(graphs)),
        ))
    return findings
