"""## What it does
Finds functions whose graph breaks shred them into compiled graphs of only a few ops each.

## Why is this bad?
Each compiled graph pays a fixed cost on every call (guard checks, the compiled wrapper, a switch back to Python)
and is its own fusion island: a 2-op graph saves almost nothing over eager and costs a full compile.

## Example
```python
y = torch.relu(x)
print(y.shape)        # graph break
z = y * 2             # tiny graph
if z.sum() > 0:       # graph break
    ...
```

## Use instead
Remove the breaks between the pieces (see the BRK findings at the same function), or leave tiny helper
functions uncompiled with `torch.compiler.disable`.
"""

from collections import defaultdict

from tdiag.analyzer.model import Finding
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule

RULE = Rule("CMP001", "tiny-graphs", "warning", "Graph breaks leave compiled graphs too small to pay for themselves")
TINY_OPS = 3  # graphs with at most this many ops
MIN_TINY_GRAPHS = 2


def check(ctx):
    a = ctx.analysis
    by_function = defaultdict(list)
    for graph in a.graphs:
        if graph.status == "ok" and 0 < graph.op_count <= TINY_OPS:
            by_function[(graph.path, user_function_name(graph.code_name))].append(graph)
    broken = {(b.site.path, b.site.function) for b in a.breaks} | {b.site.path for b in a.breaks}
    findings = []
    for (path, function), graphs in by_function.items():
        if len(graphs) < MIN_TINY_GRAPHS and (path, function) not in broken and path not in broken:
            continue
        first = min(graphs, key=lambda g: g.line)
        ops = [g.op_count for g in graphs]
        findings.append(
            Finding(
                code=RULE.code, name=RULE.name, severity=RULE.severity,
                message=f"{function} compiles into {len(graphs)} graph(s) of only {', '.join(map(str, ops))} op(s): "
                "too small to pay for their guards and calls",
                fix="remove the graph breaks between these pieces, or torch.compiler.disable the tiny function",
                path=path, line=first.line, function=function, occurrences=len(graphs),
                compile_ids=[g.compile_id for g in graphs], impact=float(len(graphs)),
                evidence={"op_counts": ops, "threshold_ops": TINY_OPS},
            )
        )
    return findings
