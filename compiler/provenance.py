"""Inductor provenance tracking: the kernel -> FX node -> user line artifacts and the debug handles in output code."""

from __future__ import annotations

from typing import Any

PROVENANCE_LEVEL = 1


def install(session: Any):
    import torch._inductor.config as inductor_config

    trace_config = getattr(inductor_config, "trace", None)
    if trace_config is None or not hasattr(trace_config, "provenance_tracking_level"):
        session.note("this torch has no Inductor provenance tracking: kernels are not mapped to source lines")
        return None
    previous = trace_config.provenance_tracking_level
    if not previous:
        # Part of the FX graph cache key: the first run with it on recompiles each graph once.
        trace_config.provenance_tracking_level = PROVENANCE_LEVEL

    def undo() -> None:
        trace_config.provenance_tracking_level = previous

    return undo
