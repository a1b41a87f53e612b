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

Graphs that are small because the function is small (a few ops in all) are not reported: removing its breaks
would not make them bigger. Nor are pieces cut only by breaks at the user's own lines: each of those is a finding of
its own, with its fix, and the pieces add nothing to them; the finding is for pieces cut by breaks inside library
code, which no break finding at the user's lines explains. With a measured runtime window, pieces that did not run in it (a cold path) are not
reported either; without one, the finding cannot say how often the pieces run.

## Use instead
Remove the breaks between the pieces (see the BRK findings at the same function), or leave tiny helper
functions uncompiled with `torch.compiler.disable`.
"""

from collections import defaultdict

from tdiag.analyzer.evidence import TinyGraphsEvidence
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule

RULE = Rule("CMP001", "tiny-graphs", "warning", "Graph breaks leave compiled graphs too small to pay for themselves",
            moot_when_stopped=True)
TINY_OPS = 3  # graphs with at most this many ops
MIN_TINY_GRAPHS = 2  # distinct pieces of one function (recompiled variants of one piece are not more pieces)
MIN_FUNCTION_OPS = 8  # a function this small stays small without its breaks: tiny by nature, nothing to win


def check(ctx):
    a = ctx.analysis
    broken = {(b.rank, b.compile_id) for b in a.breaks}
    by_function = defaultdict(list)
    for graph in a.graphs:
        if graph.status == "ok":
            by_function[(graph.rank, graph.path, user_function_name(graph.code_name))].append(graph)
    findings = []
    for (_rank, _path, function), graphs in by_function.items():
        pieces: dict[int, int] = {}  # frame id -> its largest variant's op count
        for g in graphs:
            pieces[g.frame_id] = max(pieces.get(g.frame_id, 0), g.op_count)
        tiny = [g for g in graphs if 0 < g.op_count <= TINY_OPS]
        tiny_pieces = {g.frame_id for g in tiny}
        # Only breaks make pieces: a function whose compiles never broke is not shredded, however small.
        if len(tiny_pieces) < MIN_TINY_GRAPHS or not any((g.rank, g.compile_id) in broken for g in graphs):
            continue
        if sum(pieces.values()) < MIN_FUNCTION_OPS:
            continue
        measured = [g for g in tiny if g.runtime is not None]
        if measured and not any(g.runtime.calls for g in measured):
            continue  # the measured window saw none of the pieces run: a cold path, not worth the finding
        first = min(graphs, key=lambda g: (g.frame_id, g.line))
        site, library = ctx.graph_anchor(first)
        ops = [g.op_count for g in tiny]
        cutting = [b for b in a.breaks if (b.rank, b.compile_id) in {(g.rank, g.compile_id) for g in graphs}]
        if cutting and not any(b.library_frame is not None for b in cutting):
            continue  # every break that cuts it is at a line of the user's, whose own finding gives its fix
        break_lines = sorted({b.site.line for b in cutting})
        findings.append(
            RULE.finding(
                message=f"{function} compiles into {len(pieces)} pieces, {len(tiny_pieces)} of only "
                f"{', '.join(str(max(g.op_count for g in tiny if g.frame_id == i)) for i in sorted(tiny_pieces))} op(s) ({sum(pieces.values())} ops in all): the "
                f"graph breaks at line(s) {', '.join(map(str, break_lines))} leave pieces too small to pay for their "
                "guards and calls",
                fix="remove the graph breaks between these pieces, or torch.compiler.disable the tiny function",
                path=site.path, line=site.line, function=function, occurrences=len(tiny),
                compile_ids=[g.compile_id for g in tiny], impact=float(len(tiny)), library_frame=library,
                evidence=TinyGraphsEvidence(op_counts=ops, threshold_ops=TINY_OPS),
                graph_keys=[g.key for g in tiny],
            )
        )
    return findings
