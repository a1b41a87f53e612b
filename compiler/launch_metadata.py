"""Triton launch metadata (registers, spills, shared memory, warps, stages, block sizes) per compiled kernel.

Launchers exist only after a kernel's first call, so they are read when the session ends. Each Triton kernel is a
``CachingAutotuner`` global of its wrapper module in ``PyCodeCache``; the module file is the key the analyzer uses
to join them to a graph (``inductor_output_code`` metadata carries the same file name). GPU only: on a CPU-only
install Triton is never imported and this does nothing.
"""

from __future__ import annotations

import sys
from typing import Any

from tdiag.compiler.failures import report

HEURISTICS_MODULE = "torch._inductor.runtime.triton_heuristics"


def install(session: Any):
    return lambda: _record(session)


def _record(session: Any) -> None:
    if HEURISTICS_MODULE not in sys.modules:  # Triton never ran: nothing to read (and never import it here)
        return
    try:
        kernels = collect()
    except Exception as exc:
        report(session, "Triton launch metadata", exc)
        return
    if kernels:
        session.write({"type": "triton_launch", "kernels": kernels})


def collect() -> list[dict[str, Any]]:
    from torch._inductor.codecache import PyCodeCache
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    modules = PyCodeCache.modules if isinstance(PyCodeCache.modules, list) else list(PyCodeCache.modules.values())
    out = []
    for module in modules:
        path = getattr(module, "__file__", None)
        for name, value in list(vars(module).items()):
            try:
                # type(): a dead weakproxy raises on isinstance
                if not issubclass(type(value), CachingAutotuner):
                    continue
                launchers = [_launcher(launcher) for launcher in getattr(value, "launchers", None) or []]
            except Exception:
                continue
            if launchers:
                out.append({"module": path, "name": name, "launchers": launchers})
    return out


def _launcher(launcher: Any) -> dict[str, Any]:
    config = getattr(launcher, "config", None)
    info = {
        "n_regs": getattr(launcher, "n_regs", None),
        "n_spills": getattr(launcher, "n_spills", None),
        "shared": getattr(launcher, "shared", None),
        "num_warps": getattr(config, "num_warps", None),
        "num_stages": getattr(config, "num_stages", None),
    }
    kwargs = getattr(config, "kwargs", None)
    if isinstance(kwargs, dict):
        info["block"] = {str(k): v for k, v in kwargs.items() if isinstance(v, (int, float, str, bool))}
    return {k: (v if isinstance(v, (int, float, str, bool, dict)) or v is None else str(v)) for k, v in info.items()}
