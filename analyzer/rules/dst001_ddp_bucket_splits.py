"""## What it does
Reports graphs that DDPOptimizer split at DDP's gradient-bucket boundaries, with the buckets: the parameters in
each subgraph, their size, and the lines of the model they cover.

## Why is this bad?
It is not: the splits are deliberate (`torch._dynamo.config.optimize_ddp`), so that DDP can all-reduce each bucket's
gradients while the backward pass of the earlier layers still runs. They are listed so that they are not mistaken
for graph breaks: they are not counted as breaks, and `fullgraph=True` does not remove them.

## Example
```python
model = torch.compile(DDP(Net(), bucket_cap_mb=25))   # Net.forward compiled as one graph, run as N subgraphs
```

## Use instead
Nothing to change. Fewer, larger buckets (`bucket_cap_mb`) give fewer subgraphs and less overlap;
`torch._dynamo.config.optimize_ddp = False` gives one graph and no overlap of communication with backward.
"""

from collections import defaultdict

from tdiag.analyzer.distributed import format_bytes
from tdiag.analyzer.evidence import DistributedEvidence
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule

RULE = Rule("DST001", "ddp-bucket-splits", "info", "DDPOptimizer split a graph at gradient buckets (expected)")


def check(ctx):
    groups = defaultdict(list)  # (path, line, code name) -> graphs, one per rank
    for graph in ctx.analysis.graphs:
        if graph.ddp_buckets:
            groups[(graph.path, graph.line, graph.code_name)].append(graph)
    wrapper_sites = _ddp_wrapper_break_sites(ctx.analysis)
    findings = []
    for graphs in groups.values():
        graph = graphs[0]
        site, library = ctx.graph_anchor(graph)
        function = user_function_name(graph.code_name)
        buckets = [
            f"{b.name}: {', '.join(b.params) or 'no parameters'} ({format_bytes(b.bytes)})"
            + (f", lines {', '.join(str(r.line) for r in b.lines)}" if b.lines else "")
            for b in graph.ddp_buckets
        ]
        findings.append(
            RULE.finding(
                by_design=True,  # DDPOptimizer's own splits, not the program's
                message=f"{function} ({graph.path}:{graph.line}) runs as {len(graph.ddp_buckets)} subgraphs that "
                f"DDPOptimizer cut at gradient-bucket boundaries: expected splits (DDP overlaps each bucket's "
                f"all-reduce with backward), not graph breaks" + wrapper_sites,
                fix="nothing to fix; bucket_cap_mb sets the bucket size, torch._dynamo.config.optimize_ddp=False "
                "gives one graph without the overlap",
                path=site.path, line=site.line, function=function, library_frame=library,
                occurrences=len(graphs),
                compile_ids=sorted({g.compile_id for g in graphs}),
                impact=0.0,
                evidence=DistributedEvidence(wrapper="DistributedDataParallel", buckets=buckets,
                                             reason="DDPOptimizer (torch._dynamo.config.optimize_ddp)"),
                ranks={g.rank: 1 for g in graphs if g.rank is not None},
                graph_keys=sorted(g.key for g in graphs),
            )
        )
    return findings


def _ddp_wrapper_break_sites(analysis) -> str:
    """The breaks that happen inside DDP's own forward (its logger call, its context managers), by user line."""
    sites = defaultdict(int)
    for b in analysis.breaks:
        in_ddp = [i for i, f in enumerate(b.user_stack) if f.path.replace("\\", "/").endswith("nn/parallel/distributed.py")]
        # inside DDP's code and not deeper in the user's model that DDP called
        if in_ddp and not any(f.is_user for f in b.user_stack[in_ddp[-1] + 1 :]):
            sites[f"{b.site.path}:{b.site.line}"] += 1
    if not sites:
        return ""
    where = ", ".join(f"{n} at {site}" for site, n in sites.items())
    return f"; the graph breaks at the call of the DDP module ({where}) are in DDP's own forward, not in your model"
