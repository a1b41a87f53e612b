"""## What it does
Finds compiled graphs that `mode="reduce-overhead"` ran *without* CUDA graphs, with torch's reason and the line
that caused it: an input the graph mutates, a CPU tensor inside a CUDA graph, an op CUDA graphs cannot capture
(`.item()`, data-dependent shapes), a dynamic graph with `cudagraph_skip_dynamic_graphs`, or a graph re-recorded
so often that torch gave up on it.

## Why is this bad?
torch decides this silently (one log line at most) and runs the graph with ordinary kernel launches: the whole
point of reduce-overhead, removing per-kernel launch cost, is lost, and the program is no faster than `default`.

## Example
```python
@torch.compile(mode="reduce-overhead")
def step(x, stats):
    stats.add_(x.sum())          # mutates an input: CUDA graphs skipped
    return x * 2
```

## Use instead
```python
@torch.compile(mode="reduce-overhead")
def step(x, stats):
    return x * 2, stats + x.sum()   # return the new value instead of mutating the input
```
A host read torch names as the reason (`.item()` kept in the graph by `capture_scalar_outputs`) gets a patch: the
read and what prints it move after the call, as BRK002's do; `tdiag fix --verify` tries them in that order.
"""

from collections import defaultdict

from tdiag.analyzer.evidence import CudaGraphEvidence
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._breaks import ranks_of
from tdiag.analyzer.rules._cudagraph_fixes import fix_for
from tdiag.analyzer.rules._sites import anchor, frame_call_sites

RULE = Rule("CGR001", "cudagraph-skipped", "warning", "A compiled graph ran without CUDA graphs",
            suggester="cudagraph_skip")


def check(ctx):
    entries = frame_call_sites(ctx.analysis)
    groups = defaultdict(list)  # (path, line, kind) -> [(graph, skip)]
    for graph in ctx.analysis.graphs:
        for skip in graph.cudagraph.skips if graph.cudagraph else []:
            where = skip.site
            entry = entries.get((graph.rank, graph.frame_id))  # a library line torch names: the user's call line
            site, library = anchor(where.path, where.line, where.function, entry) if where else anchor(
                graph.path, graph.line, graph.code_name, entry)
            groups[(site.path, site.line, skip.kind)].append((graph, skip, site, library))
    findings = []
    for (path, line, kind), items in groups.items():
        graph, skip, site, library = items[0]
        function = user_function_name(graph.code_name)
        op = f" ({skip.op})" if skip.op and skip.op not in skip.reason else ""
        findings.append(
            RULE.finding(
                message=f"CUDA graphs skipped for {function} ({graph.path}:{graph.line}): {skip.reason}{op}"
                + (" - decided when the graph first ran" if skip.at == "run" else ""),
                fix=fix_for(kind),
                path=path, line=line, function=site.function, library_frame=library,
                occurrences=len(items),
                compile_ids=sorted({g.compile_id for g, *_ in items}),
                impact=float(len(items)) * 5.0,  # every call of the graph pays full launch overhead
                evidence=CudaGraphEvidence(graph=f"{function} {graph.path}:{graph.line}",
                                           reasons=sorted({s.reason for _, s, *_ in items}), skip_kind=kind,
                                           op=skip.op, at=skip.at, code=skip.code,
                                           recordings=len(graph.cudagraph.recordings)),
                ranks=ranks_of(g for g, *_ in items),
                graph_keys=sorted({g.key for g, *_ in items}),
            )
        )
    return findings
