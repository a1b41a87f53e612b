"""## What it does
Finds matrix multiplies left to an extern library call (`extern_kernels.mm/addmm/bmm`: cuBLAS, MKL) that are
directly followed by a generated pointwise kernel on the same user line: an epilogue (bias, activation, scale)
that a GEMM template could have fused.

## Why is this bad?
The GEMM result makes an extra round trip through memory before the epilogue kernel reads it back. With
`mode="max-autotune"` Inductor benchmarks Triton (GPU) or C++ (CPU) GEMM templates that absorb the epilogue
(`triton_tem_fused_addmm_gelu_...`), which often wins for small and medium shapes.

## Example
```python
y = torch.nn.functional.gelu(self.fc(x))   # extern_kernels.addmm, then triton_poi_fused_gelu_0
```

## Use instead
Try `torch.compile(model, mode="max-autotune")` (or `max-autotune-no-cudagraphs`) and compare step time:
autotuning costs compile time and picks the library call when it is faster.
"""

from tdiag.analyzer.kernel_kinds import is_gemm
from tdiag.analyzer.model import Finding
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._kernel_sites import kernel_site

RULE = Rule("LOW002", "extern-gemm-epilogue", "info", "A GEMM left to an extern call could fuse its epilogue under max-autotune")
EPILOGUE_KINDS = ("pointwise",)


def check(ctx):
    findings = {}
    for graph in ctx.analysis.graphs:
        if any(k.kind == "template" for k in graph.kernels):
            continue  # autotuning already ran for this graph
        for gemm, follower in zip(graph.kernels, graph.kernels[1:]):
            if not is_gemm(gemm.name) or gemm.graph != follower.graph or follower.kind not in EPILOGUE_KINDS:
                continue
            lines = {(r.path, r.line) for r in gemm.source_lines}
            if not lines & {(r.path, r.line) for r in follower.source_lines}:
                continue
            path, line, code = kernel_site(gemm, graph)
            key = (path, line)
            if key in findings:
                findings[key].occurrences += 1
                findings[key].compile_ids = sorted(set(findings[key].compile_ids) | {graph.compile_id})
                continue
            findings[key] = Finding(
                code=RULE.code, name=RULE.name, severity=RULE.severity,
                message=f"{gemm.name} ({gemm.backend}) is followed by {follower.name}: its epilogue runs as a separate "
                f"kernel; a GEMM template could fuse it",
                fix='try torch.compile(..., mode="max-autotune") and compare step time',
                path=path, line=line, function=graph.code_name, compile_ids=[graph.compile_id], impact=0.5,
                evidence={"gemm": gemm.name, "backend": gemm.backend, "epilogue": follower.name,
                          "epilogue_nodes": follower.fused_nodes, "graph": gemm.graph, "code": code},
            )
    return list(findings.values())
