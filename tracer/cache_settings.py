"""The compile-cache switches as the program left them, for the record's exit event (``exit.compile_cache``).

With a cache turned off torch logs no cache event at all; the analysis needs the switch to say "disabled" rather than
nothing (analyzer/compile_cache.py). Read at exit, so a switch the program set itself is seen; config modules are read
only where the program imported them (never imported here). Standard library and torch only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

ENV = ("TORCH_COMPILE_DEBUG", "TORCHINDUCTOR_FORCE_DISABLE_CACHES", "TORCHINDUCTOR_FX_GRAPH_CACHE",
       "TORCHINDUCTOR_AUTOGRAD_CACHE")
CONFIG = (("inductor", "torch._inductor.config", ("force_disable_caches", "fx_graph_cache")),
          ("functorch", "torch._functorch.config", ("enable_autograd_cache",)))


def cache_settings() -> dict[str, Any]:
    out: dict[str, Any] = {f"env:{name}": os.environ[name] for name in ENV if name in os.environ}
    for label, module_name, names in CONFIG:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        for name in names:
            try:
                value = getattr(module, name)
            except Exception:  # a torch without the switch: nothing to say about it
                continue
            if isinstance(value, (bool, int, str)) or value is None:
                out[f"{label}.{name}"] = value
    return out
