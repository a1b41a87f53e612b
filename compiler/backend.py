"""The ``tdiag`` torch.compile backend: Inductor with provenance tracking on for the graphs it compiles.

``torch.compile(model, backend="tdiag")`` behaves as Inductor; under ``tdiag run`` the capture sees the same
artifacts as for ``backend="inductor"``. Outside a run it still turns provenance on (per graph, backward included,
through ``compile_fx``'s ``config_patches``), so a TORCH_TRACE log taken later is complete for ``tdiag import``.
"""

from __future__ import annotations

from typing import Any

from tdiag.compiler.provenance import PROVENANCE_LEVEL


def tdiag_backend(gm, example_inputs, mode: str | None = None, options: dict[str, Any] | None = None):
    from torch._inductor.compile_fx import compile_fx

    return compile_fx(gm, example_inputs, config_patches=config_patches(mode, options))


def config_patches(mode: str | None = None, options: dict[str, Any] | None = None) -> dict[str, Any]:
    patches: dict[str, Any] = {}
    if mode and mode != "default":
        from torch._inductor import list_mode_options

        patches.update(list_mode_options(mode))
    patches.update(options or {})
    import torch._inductor.config as inductor_config

    if hasattr(getattr(inductor_config, "trace", None), "provenance_tracking_level"):
        patches.setdefault("trace.provenance_tracking_level", PROVENANCE_LEVEL)
    return patches
