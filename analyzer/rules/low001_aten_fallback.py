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
from typing import Any, NamedTuple

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


class Fallback(NamedTuple):
    """One fallback kernel call site: where the user wrote it, its op, and what it cut apart."""

    site: Any
    op: str
    graph: Any
    kernel: Any
    before: str | None
    after: str | None
    code: str | None
    library: Any


def check(ctx):
    hits = []
    for graph in ctx.analysis.graphs:
        for index, kernel in enumerate(graph.kernels):
            if kernel.kind != "fallback" or is_vendor_kernel(op_label(kernel.name)):
                continue
            site, library, code = kernel_site(kernel, graph, ctx.frame_sites.get((graph.rank, graph.frame_id)))
            hits.append(Fallback(site, op_label(kernel.name), graph, kernel, _neighbour(graph.kernels, index, -1),
                                 _neighbour(graph.kernels, index, +1), code, library))
    complex_hits = [h for h in hits if _complex_fallback(ctx.analysis, h)]
    findings = [_complex_finding(complex_hits)] if complex_hits else []
    sites: dict[tuple[str, int, str], list[Fallback]] = defaultdict(list)
    for h in hits:
        if h not in complex_hits:
            sites[(h.site.path, h.site.line, h.op)].append(h)
    # the backward's fallbacks at a line where the forward has one are the backward of that op: one finding, the
    # forward's (a line with backward fallbacks only is kept: the user's op differentiates into the fallback)
    forward_lines = {(path, line) for (path, line, _), hs in sites.items() if any(_forward(h) for h in hs)}
    for (path, line, op), hs in sites.items():
        if not any(_forward(h) for h in hs) and (path, line) in forward_lines:
            continue
        findings.append(_finding(path, line, op, hs))
    return findings


def _forward(h: Fallback) -> bool:
    return h.kernel.graph != "backward"


def _finding(path, line, op, hits: list[Fallback]):
    first = hits[0]
    reason = first.kernel.fallback_reason or "unknown reason"
    split = " and ".join(n for n in (first.before, first.after) if n)
    message = f"{op} runs as an eager fallback inside the compiled graph ({reason})"
    if split:
        message += f"; it separates {split}, which cannot fuse across it"
    return RULE.finding(
        message=message,
        fix=f"replace {op} with ops Inductor lowers, or register a lowering/decomposition for it",
        path=path, line=line, function=first.graph.code_name, **_counts(hits), library_frame=first.library,
        evidence=_evidence(first, reason, hits),
    )


def _counts(hits: list[Fallback]) -> dict:
    return {"occurrences": len(hits), "compile_ids": sorted({h.graph.compile_id for h in hits}),
            "impact": IMPACT_PER_FALLBACK * len(hits), "graph_keys": sorted({h.graph.key for h in hits})}


def _evidence(first: Fallback, reason: str, hits: list[Fallback]) -> FallbackEvidence:
    return FallbackEvidence(op=first.op, kernel=first.kernel.name, reason=reason, backend=first.kernel.backend,
                            graphs=sorted({h.kernel.graph for h in hits}), before=first.before, after=first.after,
                            code=first.code)


def _complex_fallback(analysis, h: Fallback) -> bool:
    """A fallback that exists because the graph computes on complex tensors, which Inductor generates no code for:
    the views into and out of complex, and the ops whose lowering declined the complex dtype."""
    code = analysis.code.get(h.graph.graph_code_ref) if h.graph.graph_code_ref else None
    if not (isinstance(code, str) and COMPLEX_TENSOR.search(code)):
        return False
    return h.op in COMPLEX_OPS or (h.kernel.fallback_reason or "").startswith("unsupported dtype")


def _complex_finding(hits: list[Fallback]):
    """One finding for every fallback complex tensors cause, at the first forward line of them (the user's first
    complex op), naming the ops and lines: one cause, one change (blind batch 8: thirteen per-op findings, seven of
    them backward ops the user never wrote)."""
    forward = [h for h in hits if _forward(h)] or hits
    first = min(forward, key=lambda h: (h.site.path, h.site.line))
    ops = sorted({h.op for h in hits})
    # the lines the ops were written on (a kernel with no source line of its own is placed at the graph's entry)
    lines = sorted({h.site.line for h in forward if h.site.path == first.site.path and h.kernel.source_lines}) \
        or [first.site.line]
    return RULE.finding(
        message=(f"the compiled graph computes on complex tensors, for which Inductor generates no code: "
                 f"{', '.join(ops)} run as eager fallbacks inside it ({len(hits)} calls), from line"
                 f"{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))} and in their backward, cutting its "
                 "fused kernels apart"),
        fix=("compute on real tensors instead of complex ones (a complex product (a + ib)(c + id) as the real pair "
             "a*c - b*d, a*d + b*c; for rotary embeddings, cos/sin tables applied to the two halves), or keep the "
             "complex-valued part outside the compiled function"),
        path=first.site.path, line=first.site.line, function=first.graph.code_name, **_counts(hits),
        library_frame=first.library, evidence=_evidence(first, "complex dtype", hits),
    )


def _neighbour(kernels, index, step):
    """The nearest generated kernel on one side: the fusion partner the fallback cut off."""
    i = index + step
    while 0 <= i < len(kernels):
        if kernels[i].kind not in ("fallback", "extern"):
            return kernels[i].name
        i += step
    return None
