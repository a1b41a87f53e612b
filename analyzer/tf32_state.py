"""Inductor's TF32 warning where torch did not print it: torch warns that float32 matmuls leave the tensor cores
unused only while Inductor compiles a graph anew (compile_fx.py's ``_warn_tf32_disabled``), so a run its compile
cache served (every run after the first, every verification run of ``tdiag fix``) says nothing, and WRN001/WRN002
would come and go with the cache. The capture records what torch's check reads, as the program left it (the GPU's
compute capability, the float32 matmul precision: tracer/session.py ``_matmul_at_exit``); with a float32 GEMM in a
compiled graph, the warning torch would have printed is put at that GEMM's user line, marked as inferred."""

from __future__ import annotations

from typing import Any

from tdiag.analyzer.eager_parity import LOW_PRECISION
from tdiag.analyzer.kernel_kinds import is_gemm
from tdiag.analyzer.model import Site

ENTRY = "tf32-not-enabled"
# torch's own sentence (compile_fx.py), which the catalogue entry matches and quotes
TEXT = ("TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled. "
        "Consider setting `torch.set_float32_matmul_precision('high')` for better performance.")
AMPERE = [8, 0]  # torch warns from this compute capability on (its check: get_device_capability() >= (8, 0))


def silent_sites(log: Any, analysis: Any) -> list[tuple[Any, str, Site]]:
    """(rank, compile id, the float32 GEMM's user line) per rank where torch's check would warn: the GPU and the
    matmul precision as the program left them, and a compiled float32 cuBLAS GEMM."""
    out = []
    for rank, exit_event in log.exits.items():
        if not _tf32_off_on_ampere(exit_event.get("matmul")):
            continue
        found = _float32_gemm(analysis, rank)
        if found is not None:
            out.append((rank, found[0].compile_id, found[1]))
    return out


def _tf32_off_on_ampere(matmul: Any) -> bool:
    if not isinstance(matmul, dict) or not isinstance(matmul.get("capability"), list):
        return False
    return (matmul["capability"] >= AMPERE and matmul.get("precision") == "highest"
            and matmul.get("allow_tf32") is False and matmul.get("fp32_precision") != "tf32")


def _float32_gemm(analysis: Any, rank: Any) -> tuple[Any, Site] | None:
    """The first compiled graph of ``rank`` that runs a cuBLAS GEMM and computes in no low precision, and the user
    line of that GEMM (else the line that entered the graph's frame)."""
    entries = {(f.rank, v): f.call_site for f in analysis.frames for v in f.variants}
    for graph in analysis.graphs:
        if graph.rank != rank or graph.status != "ok":
            continue
        gemm = next((k for k in graph.kernels if k.backend == "cublas" and is_gemm(k.name)), None)
        code = analysis.code.get(graph.graph_code_ref) if graph.graph_code_ref else None
        if gemm is None or (isinstance(code, str) and LOW_PRECISION.search(code)):
            continue
        site = (Site(gemm.source_lines[0].path, gemm.source_lines[0].line) if gemm.source_lines
                else entries.get((rank, graph.compile_id)))
        if site is not None:
            return graph, site
    return None
