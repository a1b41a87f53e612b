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

from collections import defaultdict

from tdiag.analyzer.evidence import FallbackEvidence
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._kernel_sites import kernel_site, op_label
from tdiag.analyzer.rules._vendor import is_vendor_kernel

RULE = Rule("LOW001", "aten-fallback", "warning", "An op falls back to eager ATen inside a compiled graph")
IMPACT_PER_FALLBACK = 2.0


def check(ctx):
    sites: dict[tuple[str, int, str], list] = defaultdict(list)
    for graph in ctx.analysis.graphs:
        for index, kernel in enumerate(graph.kernels):
            if kernel.kind != "fallback" or is_vendor_kernel(op_label(kernel.name)):
                continue
            site, library, code = kernel_site(kernel, graph, ctx.frame_sites.get((graph.rank, graph.frame_id)))
            before = _neighbour(graph.kernels, index, -1)
            after = _neighbour(graph.kernels, index, +1)
            sites[(site.path, site.line, op_label(kernel.name))].append((graph, kernel, before, after, code, library))
    findings = []
    for (path, line, op), hits in sites.items():
        graph, kernel, before, after, code, library = hits[0]
        reason = kernel.fallback_reason or "unknown reason"
        split = " and ".join(n for n in (before, after) if n)
        message = f"{op} runs as an eager fallback inside the compiled graph ({reason})"
        if split:
            message += f"; it separates {split}, which cannot fuse across it"
        findings.append(
            RULE.finding(
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
        )
    return findings


def _neighbour(kernels, index, step):
    """The nearest generated kernel on one side: the fusion partner the fallback cut off."""
    i = index + step
    while 0 <= i < len(kernels):
        if kernels[i].kind not in ("fallback", "extern"):
            return kernels[i].name
        i += step
    return None
