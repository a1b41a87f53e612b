"""Per-graph guards and kernels as the page's embedded data; the script builds their tables when a graph is opened.

A 100k-event run has tens of thousands of guards and kernels: as server-rendered tables they were most of the page's
bytes and of its render time, while a reader opens a handful of graphs.
"""

from __future__ import annotations

from typing import Any

from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.kernel_modules import module_label
from tdiag.analyzer.model import CompiledGraph, Guard, Kernel

from .strings import StringTable


def graph_rows(graphs: list[Any], code: dict[str, str], strings: StringTable) -> list[list[Any]]:
    """One ``[guards, kernel_groups]`` per page.GraphView, in page order; ``code`` tells which code refs the page has."""
    return [[_guards(gv.g, strings), _groups(gv, code, strings)] for gv in graphs]


def _guards(graph: CompiledGraph, s: StringTable) -> list[list[Any]]:
    return [_guard(g, s) for g in graph.guards]


def _guard(g: Guard, s: StringTable) -> list[Any]:
    # [kind, text, path, line, source]; the text as the user's code names it (a reader opens it as the user)
    return [s(g.kind), s(user_words(g.text)), s(g.path), g.line, s(g.source)]


def _groups(gv: Any, code: dict[str, str], s: StringTable) -> list[list[Any]]:
    return [[s(group.graph), [_kernel(k, code, s) for k in group.kernels]] for group in gv.kernel_groups]


def _kernel(k: Kernel, code: dict[str, str], s: StringTable) -> list[Any]:
    # [name, kind, backend, fused_nodes, [[path, line, code]], fallback_reason, code_ref, module, [path, line, code]]
    return [
        s(k.name),
        s(k.kind),
        s(k.backend),
        s.many(k.fused_nodes),
        [[s(ref.path), ref.line, s(ref.code)] for ref in k.source_lines],
        s(k.fallback_reason),
        s(k.code_ref) if k.code_ref in code else None,
        s(module_label(k)),
        [s(k.frame.path), k.frame.line, s(k.frame.code)] if k.frame is not None else None,
    ]
