"""A logging handler on torch's structured-trace logger that writes every event to the record.

A handler on ``torch.__trace`` is enough for torch to build its structured events in-process (no TORCH_TRACE
file); ``trace_logger`` keeps this one attached through the program's own logging setup. Nothing on the per-call path
of compiled code logs here, so it costs nothing after compilation. A record it cannot turn into an event is counted
as a capture problem (``on_error``), never dropped in silence.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from tdiag.tracer import trace_logger
from tdiag.tracer.torch_trace import event_name, slim_metadata  # one reading of torch's envelope, shared with import

from tdiag.record import RecordWriter

TRACE_LOGGER = trace_logger.TRACE_LOGGER


class TraceCollector(logging.Handler):
    """Turns each structured-trace record into a ``torch`` event; never raises into torch."""

    def __init__(
        self,
        writer: RecordWriter,
        listener: Callable[[str, dict[str, Any], str | None], None] | None = None,
        on_error: Callable[[str, BaseException], None] | None = None,
    ):
        super().__init__(logging.DEBUG)
        self.writer = writer
        self.listener = listener
        self.on_error = on_error
        self.errors = 0
        self._detach: Callable[[], None] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict):
                raise TypeError(f"structured-trace record metadata is {type(metadata).__name__}, not dict")
            name = event_name(metadata)
            if name is None:
                raise ValueError(f"structured-trace record names no event (keys: {sorted(metadata)[:6]})")
            payload = getattr(record, "payload", None)
            metadata = slim_metadata(name, metadata)
            if payload is not None and not isinstance(payload, str):
                payload = str(payload)
            self.writer.write_payload({"type": "torch", "t": time.time(), "name": name, "meta": metadata}, payload)
            if self.listener is not None:
                self.listener(name, metadata, payload)
        except Exception as exc:  # a diagnostics tool must not break the compile it watches
            self.errors += 1
            if self.on_error is not None:
                self.on_error("structured-trace handler", exc)

    def install(self) -> None:
        self._detach = trace_logger.attach(self.emit, fallback=self)

    def uninstall(self) -> None:
        if self._detach is not None:
            self._detach()
            self._detach = None
