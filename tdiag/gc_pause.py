"""Cyclic garbage collection paused for a short stretch of tdiag's own work, restored as it was after."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No collection passes inside the block (callers say why: a large heap each pass would walk for nothing)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
