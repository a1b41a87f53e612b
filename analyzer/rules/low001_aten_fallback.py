"""## What it does
Finds ops that Inductor did not generate code for and instead calls back into eager ATen (or a custom op's own
kernel) inside a compiled graph: `torch.ops.aten.X` / `torch.ops.ns.op` call sites in the generated code.

## Why is this bad?
A fallback is a fusion barrier: its inputs must be materialised in memory, and the kernels before and after it
cannot be fused with each other or with it. An *implicit* fallback (no lowering at all, e.g. a custom op) or one
caused by an unsupported dtype/device is often avoidable; an *explicit* one (Inductor's `make_fallback` list,
e.g. `cdist`) is Inductor's choice but still splits the fusion.

Not reported: Inductor's deliberate vendor kernels (fused attention, convolution, GEMM, FFT, linear algebra:
cuDNN, cuBLAS, MKL, oneDNN), which also appear as `torch.ops.aten.X` calls but are the fast path.

## Example
```python
d = torch.cdist(p, centers)   # aten._cdist_forward: explicit fallback
n = my_lib.scale_noise(d)     # custom op without a lowering: implicit fallback
```

## Use instead
Express the op with primitives Inductor lowers (`((a[:, None] - b[None]) ** 2).sum(-1).sqrt()` for cdist),
register a decomposition or lowering for the custom op, or move it to the start or end of the compiled region.
"""

import re
from collections import defaultdict

from tdiag.analyzer.evidence import FallbackEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._kernel_sites import kernel_site, op_label
from tdiag.analyzer.rules._vendor import is_vendor_kernel

RULE = Rule("LOW001", "aten-fallback", "warning", "An op falls back to eager ATen inside a compiled graph")
IMPACT_PER_FALLBACK = 2.0
# a graph that computes on complex tensors: its readable code annotates them as c64[...] (complex64) or c128/c32
COMPLEX_TENSOR = re.compile(r"\bc(?:32|64|128)\[")
# ops Inductor generates no code for on complex tensors (the views in and out of complex, and what runs on them)
COMPLEX_OPS = frozenset({"aten.view_as_complex", "aten.view_as_real", "aten._conj", "aten.polar", "aten.complex"})


def check(ctx):
    hits = []
    for graph in ctx.analysis.graphs:
        for index, kernel in enumerate(graph.kernels):
            if kernel.kind != "fallback" or is_vendor_kernel(op_label(kernel.name)):
                continue
            site, library, code = kernel_site(kernel, graph, ctx.frame_sites.get((graph.rank, graph.frame_id)))
            before = _neighbour(graph.kernels, index, -1)
            after = _neighbour(graph.kernels, index, +1)
            hits.append((site, op_label(kernel.name), (graph, kernel, before, after, code, library)))
    complex_hits = [h for h in hits if _complex_fallback(ctx.analysis, h[2][0], h[2][1], h[1])]
    findings = [_complex_finding(complex_hits)] if complex_hits else []
    sites: dict[tuple[str, int, str], list] = defaultdict(list)
    for site, op, hit in hits:
        if not any(hit is h[2] for h in complex_hits):
            sites[(site.path, site.line, op)].append(hit)
    # the backward's fallbacks at a line where the forward has one are the backward of that op: one finding, the
    # forward's (a line with backward fallbacks only is kept: the user's op differentiates into the fallback)
    forward_lines = {(path, line) for (path, line, _), hs in sites.items() if any(k.graph != "backward" for _, k, *_ in hs)}
    for (path, line, op), hs in sites.items():
        if all(k.graph == "backward" for _, k, *_ in hs) and (path, line) in forward_lines:
            continue
        findings.append(_finding(path, line, op, hs))
    return findings


def _finding(path, line, op, hits):
    graph, kernel, before, after, code, library = hits[0]
    reason = kernel.fallback_reason or "unknown reason"
    split = " and ".join(n for n in (before, after) if n)
    message = f"{op} runs as an eager fallback inside the compiled graph ({reason})"
    if split:
        message += f"; it separates {split}, which cannot fuse across it"
    return RULE.finding(
        message=message,
        fix=f"replace {op} with ops Inductor lowers, or register a lowering/decomposition for it",
        path=path, line=line, function=graph.code_name, occurrences=len(hits),
        compile_ids=sorted({g.compile_id for g, *_ in hits}),
        impact=IMPACT_PER_FALLBACK * len(hits),
        library_frame=library,
        evidence=FallbackEvidence(op=op, kernel=kernel.name, reason=reason, backend=kernel.backend,
                                  graphs=sorted({k.graph for _, k, *_ in hits}), before=before, after=after,
                                  code=code),
        graph_keys=sorted({g.key for g, *_ in hits}),
    )


def _complex_fallback(analysis, graph, kernel, op: str) -> bool:
    """A fallback that exists because the graph computes on complex tensors, which Inductor generates no code for:
    the views into and out of complex, and the ops whose lowering declined the complex dtype."""
    code = analysis.code.get(graph.graph_code_ref) if graph.graph_code_ref else None
    if not (isinstance(code, str) and COMPLEX_TENSOR.search(code)):
        return False
    return op in COMPLEX_OPS or (kernel.fallback_reason or "").startswith("unsupported dtype")


def _complex_finding(hits):
    """One finding for every fallback complex tensors cause, at the first forward line of them (the user's first
    complex op), naming the ops and lines: one cause, one change (blind batch 8: thirteen per-op findings, seven of
    them backward ops the user never wrote)."""
    forward = [h for h in hits if h[2][1].graph != "backward"] or hits
    site, op, (graph, kernel, before, after, code, library) = min(forward, key=lambda h: (h[0].path, h[0].line))
    ops = sorted({o for _, o, _ in hits})
    # the lines the ops were written on (a kernel with no source line of its own is placed at the graph's entry)
    lines = sorted({h[0].line for h in forward if h[0].path == site.path and h[2][1].source_lines}) or [site.line]
    return RULE.finding(
        message=(f"the compiled graph computes on complex tensors, for which Inductor generates no code: "
                 f"{', '.join(ops)} run as eager fallbacks inside it ({len(hits)} calls), from line"
                 f"{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))} and in their backward, cutting its "
                 "fused kernels apart"),
        fix=("compute on real tensors instead of complex ones (a complex product (a + ib)(c + id) as the real pair "
             "a*c - b*d, a*d + b*c; for rotary embeddings, cos/sin tables applied to the two halves), or keep the "
             "complex-valued part outside the compiled function"),
        path=site.path, line=site.line, function=graph.code_name, occurrences=len(hits),
        compile_ids=sorted({h[2][0].compile_id for h in hits}), impact=IMPACT_PER_FALLBACK * len(hits),
        library_frame=library,
        evidence=FallbackEvidence(op=op, kernel=kernel.name, reason="complex dtype", backend=kernel.backend,
                                  graphs=sorted({h[2][1].graph for h in hits}), before=before, after=after,
                                  code=code),
        graph_keys=sorted({h[2][0].key for h in hits}),
    )


def _neighbour(kernels, index, step):
    """The nearest generated kernel on one side: the fusion partner the fallback cut off."""
    i = index + step
    while 0 <= i < len(kernels):
        if kernels[i].kind not in ("fallback", "extern"):
            return kernels[i].name
        i += step
    return None
