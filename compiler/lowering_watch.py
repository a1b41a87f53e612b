"""Watch each graph's generated code as torch logs it and record the lowering status of every op that fell back.

A second handler on torch's structured-trace logger sees ``inductor_output_code`` on compiles *and* on cache hits
(torch re-emits the output code from the cache entry), so the status is recorded whichever way the graph was made.
"""

from __future__ import annotations

import logging
from typing import Any

from tdiag.compiler.fallback_ops import fallback_op_names, lowering_status

TRACE_LOGGER = "torch.__trace"


class OutputCodeWatcher(logging.Handler):
    def __init__(self, session: Any):
        super().__init__(logging.DEBUG)
        self.session = session
        self.recorded: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict) or "inductor_output_code" not in metadata:
                return
            payload = getattr(record, "payload", None)
            if not isinstance(payload, str):
                return
            new = [name for name in fallback_op_names(payload) if name not in self.recorded]
            if not new:
                return
            self.recorded.update(new)
            self.session.write({"type": "lowering_info", "ops": [lowering_status(name) for name in new]})
        except Exception:  # diagnostics must never break the compile they watch
            pass


def install(session: Any):
    watcher = OutputCodeWatcher(session)
    logger = logging.getLogger(TRACE_LOGGER)
    logger.addHandler(watcher)
    return lambda: logger.removeHandler(watcher)
