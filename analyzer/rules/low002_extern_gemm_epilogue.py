"""## What it does
Finds matrix multiplies left to an extern library call (`extern_kernels.mm/addmm/bmm`: cuBLAS, MKL) that are
directly followed by a generated pointwise kernel on the same user line: an epilogue (bias, activation, scale)
that a GEMM template could have fused.

## Why is this bad?
The GEMM result makes an extra round trip through memory before the epilogue kernel reads it back. With
`mode="max-autotune"` Inductor benchmarks Triton (GPU) or C++ (CPU) GEMM templates that absorb the epilogue
(`triton_tem_fused_addmm_gelu_...`), which often wins for small and medium shapes.

Only suggested where a template exists: on GPU (cuBLAS) for mm/addmm/bmm/baddbmm and the int8/fp8 GEMMs; on
CPU (MKL) only for inference graphs, because Inductor's C++ GEMM template needs a constant (frozen) weight
(`torch._inductor.config.freezing = True`); a CPU training step keeps the library call, so nothing is suggested.
Nor for a GEMM whose output is small (under 65,536 elements, 256 KB in fp32): there the epilogue's memory round
trip is noise beside one kernel launch, and autotuning costs far more compile time than it can save.

## Example
```python
y = torch.nn.functional.gelu(self.fc(x))   # extern_kernels.addmm, then triton_poi_fused_gelu_0
```

## Use instead
Try `torch.compile(model, mode="max-autotune")` (or `max-autotune-no-cudagraphs`) and compare step time:
autotuning costs compile time and picks the library call when it is faster.
"""

from tdiag.analyzer.evidence import EpilogueEvidence
from tdiag.analyzer.kernel_kinds import is_gemm
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._kernel_sites import kernel_site
from tdiag.analyzer.rules._sites import frame_call_sites

RULE = Rule("LOW002", "extern-gemm-epilogue", "info", "A GEMM left to an extern call could fuse its epilogue under max-autotune")
EPILOGUE_KINDS = ("pointwise",)
MIN_OUTPUT_ELEMENTS = 1 << 16  # below this the epilogue's round trip is noise beside a kernel launch


# Where max-autotune has a GEMM template that can absorb an epilogue. GPU (cuBLAS): Triton mm templates for these
# ops. CPU (MKL): the C++ GEMM template only packs a constant weight, i.e. inference graphs with
# torch._inductor.config.freezing = True; training graphs on CPU keep the library call, so nothing is suggested.
TEMPLATE_OPS = {
    "cublas": frozenset({"mm", "addmm", "bmm", "baddbmm", "_int_mm", "_scaled_mm"}),
    "mkl": frozenset({"mm", "addmm", "bmm"}),
}
FIX = {
    "cublas": 'try torch.compile(..., mode="max-autotune") and compare step time',
    "mkl": 'for inference, try torch._inductor.config.freezing = True with mode="max-autotune" and compare step time',
}


def template_applies(gemm, graph_role: str) -> bool:
    op = gemm.name.split(".", 1)[1]
    if op not in TEMPLATE_OPS.get(gemm.backend, ()):
        return False
    return gemm.backend != "mkl" or graph_role == "inference"


def _is_small(gemm) -> bool:
    """Known to be small: static output sizes under the floor (symbolic sizes give no verdict)."""
    if not gemm.out_shape:
        return False
    elements = 1
    for size in gemm.out_shape:
        elements *= size
    return elements < MIN_OUTPUT_ELEMENTS


def check(ctx):
    findings = {}
    entries = frame_call_sites(ctx.analysis)
    for graph in ctx.analysis.graphs:
        if any(k.kind == "template" for k in graph.kernels):
            continue  # autotuning already ran for this graph
        for gemm, follower in zip(graph.kernels, graph.kernels[1:]):
            if not is_gemm(gemm.name) or gemm.graph != follower.graph or follower.kind not in EPILOGUE_KINDS:
                continue
            if not template_applies(gemm, gemm.graph) or _is_small(gemm):
                continue
            lines = {(r.path, r.line) for r in gemm.source_lines}
            if not lines & {(r.path, r.line) for r in follower.source_lines}:
                continue
            site, library, code = kernel_site(gemm, graph, entries.get((graph.rank, graph.frame_id)))
            key = site.key
            if key in findings:
                findings[key].occurrences += 1
                findings[key].compile_ids = sorted(set(findings[key].compile_ids) | {graph.compile_id})
                continue
            findings[key] = RULE.finding(
                message=f"{gemm.name} ({gemm.backend}) is followed by {follower.name}: its epilogue runs as a separate "
                f"kernel; a GEMM template could fuse it",
                fix=FIX[gemm.backend],
                path=site.path, line=site.line, function=graph.code_name, compile_ids=[graph.compile_id], impact=0.5,
                library_frame=library,
                evidence=EpilogueEvidence(gemm=gemm.name, backend=gemm.backend, epilogue=follower.name,
                                          epilogue_nodes=follower.fused_nodes, graph=gemm.graph, code=code),
                graph_keys=[graph.key],
            )
    return list(findings.values())
