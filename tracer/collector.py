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

TRACE_LOGGER = "torch.__trace"
# Keys of the metadata dict that describe context rather than name the event.
CONTEXT_KEYS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "has_payload", "stack", "subgraph_name"}
)
# Bulky fields that repeat in every compilation_metrics event and that no analysis uses.
DROPPED_METRIC_FIELDS = ("dynamo_config", "inductor_config")
# Events whose metadata carries the whole interpreter stack (dozens of torch frames); their user_stack is kept.
FULL_STACK_EVENTS = frozenset({"create_symbol", "create_unbacked_symbol", "guard_added_fast", "guard_added", "expression_created"})


def event_name(metadata: dict[str, Any]) -> str | None:
    name = next((k for k in metadata if k not in CONTEXT_KEYS), None)
    if name == "artifact" and isinstance(metadata.get("artifact"), dict):
        return "artifact:" + str(metadata["artifact"].get("name"))
    return name


def compile_id_of(metadata: dict[str, Any]) -> str | None:
    if "frame_id" not in metadata:
        return None
    cid = f"{metadata['frame_id']}/{metadata.get('frame_compile_id')}"
    if metadata.get("compiled_autograd_id") is not None:
        cid = f"!{metadata['compiled_autograd_id']}/{cid}"
    return cid


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
            if name == "compilation_metrics" or name == "bwd_compilation_metrics":
                metrics = metadata.get(name)
                if isinstance(metrics, dict) and any(k in metrics for k in DROPPED_METRIC_FIELDS):
                    metadata = {**metadata, name: {k: v for k, v in metrics.items() if k not in DROPPED_METRIC_FIELDS}}
            elif name in FULL_STACK_EVENTS and isinstance(metadata.get(name), dict) and "stack" in metadata[name]:
                metadata = {**metadata, name: {k: v for k, v in metadata[name].items() if k != "stack"}}
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
