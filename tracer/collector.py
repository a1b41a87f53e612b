"""A logging handler on torch's structured-trace logger that writes every event to the record.

Adding a handler to ``torch.__trace`` is enough for torch to build its structured events in-process (no
TORCH_TRACE file). Nothing on the per-call path of compiled code logs here, so it costs nothing after compilation.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from tdiag.record import RecordWriter
from tdiag.tracer.torch_trace import event_name, slim_metadata  # one reading of torch's envelope, shared with import

TRACE_LOGGER = "torch.__trace"


class TraceCollector(logging.Handler):
    """Turns each structured-trace record into a ``torch`` event; never raises into torch."""

    def __init__(self, writer: RecordWriter, listener: Callable[[str, dict[str, Any], str | None], None] | None = None):
        super().__init__(logging.DEBUG)
        self.writer = writer
        self.listener = listener
        self.errors = 0

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict):
                return
            name = event_name(metadata)
            if name is None:
                return
            payload = getattr(record, "payload", None)
            metadata = slim_metadata(name, metadata)
            if payload is not None and not isinstance(payload, str):
                payload = str(payload)
            self.writer.write_payload({"type": "torch", "t": time.time(), "name": name, "meta": metadata}, payload)
            if self.listener is not None:
                self.listener(name, metadata, payload)
        except Exception:  # a diagnostics tool must not break the compile it watches
            self.errors += 1

    def install(self) -> None:
        logging.getLogger(TRACE_LOGGER).addHandler(self)

    def uninstall(self) -> None:
        logging.getLogger(TRACE_LOGGER).removeHandler(self)
