"""Shared helpers for the lowering rules: where a kernel sits in the user's code."""

from __future__ import annotations

from tdiag.analyzer.model import CompiledGraph, Kernel


def kernel_site(kernel: Kernel, graph: CompiledGraph) -> tuple[str, int, str | None]:
    """The kernel's last user line (the innermost op it came from), else the compiled function."""
    if kernel.source_lines:
        ref = kernel.source_lines[0]
        return ref.path, ref.line, ref.code
    return graph.path, graph.line, None


def op_label(kernel_name: str) -> str:
    """``torch.ops.aten._cdist_forward.default`` -> ``aten._cdist_forward``."""
    parts = kernel_name.split(".")
    if kernel_name.startswith("torch.ops.") and len(parts) >= 4:
        return f"{parts[2]}.{parts[3]}"
    return kernel_name
