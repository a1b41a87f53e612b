"""A verification run's switch: Inductor's random ops fall back to eager's (``fallback_random``).

Inductor draws dropout masks and ``torch.rand`` with its own generator, so a patch that moves a dropout into a
compiled graph changes the program's random numbers, and its printed losses, with nothing else changed. `tdiag fix
--verify` re-runs such a patched copy once with this switch set (TDIAG_INDUCTOR_FALLBACK_RANDOM=1 in the run's
environment): when the output is then the program's own, the patch changed only the random stream. Only verification
runs of a copy set it; `tdiag run` of the user's program never does.
"""

from __future__ import annotations

import os
from typing import Callable

from tdiag.tracer import import_watch

ENV = "TDIAG_INDUCTOR_FALLBACK_RANDOM"


def install(failed: Callable[[str, BaseException], None]) -> Callable[[], None]:
    """Set ``torch._inductor.config.fallback_random`` once Inductor's config is imported, where the environment
    asks for it; the undo of the watch (a no-op otherwise)."""
    if os.environ.get(ENV) != "1":
        return lambda: None

    def switch() -> None:
        try:
            import torch._inductor.config as inductor_config

            inductor_config.fallback_random = True
        except Exception as exc:  # noqa: BLE001 - a torch without the setting: the run says so, and goes on
            failed("Inductor's fallback_random", exc)

    return import_watch.after_import("torch._inductor.config", switch, lambda: None)
