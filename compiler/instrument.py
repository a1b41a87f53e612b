"""Switch on the Inductor detail the analysis needs, for the length of a capture session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def enable(session: Any, deep: bool = False) -> Callable[[], None] | None:
    """Turn on Inductor provenance tracking (kernel -> node -> source line artifacts); return the undo."""
    import torch._inductor.config as inductor_config

    trace_config = getattr(inductor_config, "trace", None)
    if trace_config is None or not hasattr(trace_config, "provenance_tracking_level"):
        session.note("this torch has no Inductor provenance tracking: kernels are not mapped to source lines")
        return None
    previous = trace_config.provenance_tracking_level
    if not previous:
        trace_config.provenance_tracking_level = 1

    def undo() -> None:
        trace_config.provenance_tracking_level = previous

    return undo
