"""Kernel device time joined per launch to the graph call that launched it (CUDA runtime window).

The capture keeps, per Inductor graph call (its FX graph key: forward and backward apart), the device time of every
kernel launched inside it, by launcher: the Triton kernel's name, or the aten op that launched a library kernel
(``aten::mm`` for the cuBLAS GEMM of an ``extern_kernels.mm`` call site, ``aten::_scaled_dot_product_...`` for a
fallback). Each launcher's time goes to the call sites of that graph role that run it, split evenly where one kernel
is called from several places; a graph that never ran in the window gets none. What no call site claims stays on the
graph as unattributed, so the per-kernel times of a graph add up to what it launched.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tdiag.analyzer.model import Analysis, Kernel

US = 1e-6


def attach(analysis: Analysis, graph_calls: dict[str, Any], rank: int | None) -> None:
    # one FX graph reused by two compile ids (a recompile that hit the caches) has one key: the graph that ran in the
    # window takes it (sorted last, so it wins)
    ran = sorted((g for g in analysis.graphs if g.rank == rank), key=lambda g: bool(g.runtime and g.runtime.calls))
    by_key = {key: (graph, role) for graph in ran for role, key in graph.fx_keys.items()}
    for key, launchers in graph_calls.items():
        if key not in by_key or not isinstance(launchers, dict):
            continue
        graph, role = by_key[key]
        sites = [k for k in graph.kernels if k.graph == role]
        for kernel in sites:
            kernel.device_s = None
        unclaimed_us = 0.0
        total_us = 0.0
        for launcher, value in launchers.items():
            if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], (int, float))):
                continue
            total_us += value[1]
            claimed = [k for k in sites if _runs(k, launcher)]
            if not claimed:
                unclaimed_us += value[1]
                continue
            for kernel in claimed:
                kernel.device_s = round((kernel.device_s or 0.0) + value[1] * US / len(claimed), 9)
        if graph.runtime is not None:
            graph.runtime.kernel_device_s[role] = round(total_us * US, 6)
            if unclaimed_us:
                graph.runtime.unattributed_device_s[role] = round(unclaimed_us * US, 6)


def _runs(kernel: Kernel, launcher: str) -> bool:
    """Whether the call site ``kernel`` launches kernels named ``launcher`` (see the module docstring)."""
    if not launcher.startswith("aten::"):
        return kernel.name == launcher
    op = launcher[len("aten::"):]
    if kernel.name.startswith("extern_kernels."):
        return kernel.name.split(".", 1)[1] == op
    if kernel.name.startswith("torch.ops."):
        parts = kernel.name.split(".")
        return len(parts) > 3 and parts[3] == op
    return False


def module_times(analysis: Analysis) -> list[dict[str, Any]]:
    """Measured kernel time per (role, module path), a fused kernel's time split evenly among the modules it fused:
    [{role, path, cls, built_at, device_s, kernels}], largest first."""
    # keyed with the line that built the module too: the same path under two different compiled roots is two modules
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    counts: dict[tuple[Any, ...], int] = defaultdict(int)
    for graph in analysis.graphs:
        for kernel in graph.kernels:
            if not kernel.device_s or not kernel.modules:
                continue
            share = kernel.device_s / len(kernel.modules)
            role = "backward" if kernel.graph == "backward" else "forward"
            for m in kernel.modules:
                where = (m.built_at.path, m.built_at.line) if m.built_at else None
                key = (role, m.path, m.cls, where)
                row = rows.setdefault(key, {"role": role, "path": m.path, "cls": m.cls, "built_at": m.built_at,
                                            "device_s": 0.0, "kernels": 0})
                row["device_s"] += share
                counts[key] += 1
    for key, row in rows.items():
        row["kernels"] = counts[key]
    return sorted(rows.values(), key=lambda r: -r["device_s"])
