"""Shared helpers for the lowering rules: where a kernel sits in the user's code."""

from __future__ import annotations

from tdiag.analyzer.model import CompiledGraph, Frame, Kernel, Site
from tdiag.analyzer.paths import is_library_display
from tdiag.analyzer.rules._sites import anchor


def kernel_site(kernel: Kernel, graph: CompiledGraph, entry: Site | None = None) -> tuple[Site, Frame | None, str | None]:
    """The kernel's user line: its innermost source line in the user's files (the line that called into the
    library, when the op itself comes from library code), else the line that entered the compiled function.
    Returns the site, the library location it stands for (or None), and the source text of the line."""
    lines = kernel.source_lines
    user = next((r for r in lines if not is_library_display(r.path)), None)
    library = next((r for r in lines if is_library_display(r.path)), None)
    if user is not None:
        lib = Frame(library.path, library.line, "?", library.code, False) if library is not None else None
        return Site(user.path, user.line, function=graph.code_name), lib, user.code
    if library is not None:
        site, _ = anchor(library.path, library.line, graph.code_name, entry)
        return site, Frame(library.path, library.line, "?", library.code, False), None
    site, lib = anchor(graph.path, graph.line, graph.code_name, entry)
    return site, lib, None


def op_label(kernel_name: str) -> str:
    """``torch.ops.aten._cdist_forward.default`` -> ``aten._cdist_forward``."""
    parts = kernel_name.split(".")
    if kernel_name.startswith("torch.ops.") and len(parts) >= 4:
        return f"{parts[2]}.{parts[3]}"
    return kernel_name
