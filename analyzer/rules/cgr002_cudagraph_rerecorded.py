"""## What it does
Finds compiled functions that `mode="reduce-overhead"` recorded as a CUDA graph more than once: every new input
size (a recompile, or a new size of a dynamic graph) records a new graph, shown here with the sizes that caused it.

## Why is this bad?
A recording runs the graph eagerly once, then captures it: it costs far more than a replay, and each recorded
graph keeps its own memory in the CUDA graph pool. A batch size that changes every step records every step.

## Example
```python
step = torch.compile(step, mode="reduce-overhead")
for batch in loader:            # last batch smaller, or variable-length sequences
    step(batch)
```

## Use instead
Pad inputs to a few fixed sizes (bucket sequence lengths, `drop_last=True` for the loader), so a handful of
graphs are recorded once and replayed; or mark the dimension dynamic and set
`torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True` where padding is impossible.

## When it stays quiet
When that state is already reached: each size recorded once, at most `SETTLED_SIZES` of them, and the measured
window (the program's steady steps) held no recording. GPT-2 with four sequence lengths, `mark_dynamic` and
CUDA graphs records four graphs in its first steps and replays them after: the expert's program, not a fault, and
its "fix" (keeping dynamic graphs out of CUDA graphs) would only undo the gain.
"""

from collections import defaultdict

from tdiag.analyzer.evidence import CudaGraphEvidence
from tdiag.analyzer.paths import user_function_name
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._sites import anchor

SETTLED_SIZES = 8  # a handful of sizes, each graph recorded once: the pool memory of a few graphs, paid once

RULE = Rule("CGR002", "cudagraph-rerecorded", "warning", "A compiled function was recorded as a CUDA graph again",
            suggester="cudagraph_rerecord")


def check(ctx):
    frames = defaultdict(list)  # (rank, frame_id) -> graphs with recordings
    for graph in ctx.analysis.graphs:
        if graph.cudagraph and graph.cudagraph.recordings:
            frames[(graph.rank, graph.frame_id)].append(graph)
    groups = defaultdict(list)  # user site -> [(graphs, recordings of the first mode)]
    for (rank, frame_id), graphs in frames.items():
        by_mode = defaultdict(list)
        for graph in graphs:
            for rec in graph.cudagraph.recordings:
                by_mode[rec.mode or "?"].append(rec)
        mode, recs = max(by_mode.items(), key=lambda kv: (kv[0] in ("FORWARD", "INFERENCE"), len(kv[1])))
        if len(recs) < 2 or settled(recs, ctx.measured_window):
            continue
        first = graphs[0]
        entry = ctx.frame_sites.get((rank, frame_id))  # the call that passed the new sizes: where padding goes
        site, library = (entry, None) if entry is not None else anchor(first.path, first.line, first.code_name, None)
        groups[(site.path, site.line)].append((graphs, recs, mode, site, library))
    findings = []
    for (path, line), items in groups.items():
        graphs, recs, mode, site, library = items[0]
        first = graphs[0]
        function = user_function_name(first.code_name)
        shapes = varying_shapes(recs)
        sizes = f" ({'; '.join(shapes)})" if shapes else ""
        all_graphs = [g for gs, *_ in items for g in gs]
        findings.append(
            RULE.finding(
                message=f"{function} ({first.path}:{first.line}) was recorded as a CUDA graph {len(recs)} times"
                f"{sizes}: {len(recs) - 1} re-recording(s), each an eager run plus a capture",
                fix="pad the input to a few fixed sizes (or drop the odd last batch) so each size is recorded once",
                path=path, line=line, function=site.function, library_frame=library,
                occurrences=len(recs) - 1,
                compile_ids=sorted({g.compile_id for g in all_graphs}),
                impact=float(len(recs) - 1) * 2.0,
                evidence=CudaGraphEvidence(graph=f"{function} {first.path}:{first.line}", recordings=len(recs),
                                           shapes=shapes, skip_kind=None, at=mode),
                ranks={str(r): 1 for r in sorted({g.rank for g in all_graphs if g.rank is not None})},
                graph_keys=sorted({g.key for g in all_graphs}),
            )
        )
    return findings


def settled(recordings, window) -> bool:
    """Each size recorded once, a handful of them, and none inside the measured window: the recordings were the
    first steps' one-off cost and the steady steps replay."""
    sizes = [tuple(r.inputs) or r.symint_key for r in recordings]
    return (window is not None and window.status == "measured" and window.recording_s == 0 and window.compile_s == 0
            and all(sizes) and len(set(sizes)) == len(sizes) <= SETTLED_SIZES)


def varying_shapes(recordings) -> list[str]:
    """Per recording, the input sizes that differ between recordings (parameters stay out), or its symint key."""
    rows = []
    sized = [r.inputs for r in recordings if r.inputs]
    common = set.intersection(*(set(s) for s in sized)) if len(sized) > 1 else set()
    for rec in recordings:
        if rec.inputs:
            varying = [s for s in rec.inputs if s not in common] or rec.inputs[:1]
            rows.append("inputs " + " ".join(varying))
        elif rec.symint_key:
            rows.append(f"sizes {rec.symint_key}")
    return list(dict.fromkeys(rows))
