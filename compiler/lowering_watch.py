"""Watch each graph's generated code as torch logs it and record the lowering status of every op that fell back.

A second handler on torch's structured-trace logger sees ``inductor_output_code`` on compiles *and* on cache hits
(torch re-emits the output code from the cache entry), so the status is recorded whichever way the graph was made.
"""

from __future__ import annotations

import logging
from typing import Any

from tdiag.compiler.failures import report
from tdiag.compiler.fallback_ops import fallback_op_names, lowering_status

TRACE_LOGGER = "torch.__trace"
# Inductor logs each implicit fallback (an op with no lowering) at INFO here, and then adds the op to its
# make_fallback set: without this log an implicit fallback would later look explicit.
GRAPH_LOGGER = "torch._inductor.graph"
IMPLICIT_MESSAGE = "Creating implicit fallback for"


class OutputCodeWatcher(logging.Handler):
    def __init__(self, session: Any):
        super().__init__(logging.DEBUG)
        self.session = session
        self.recorded: set[str] = set()
        self.implicit: set[str] = set()

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
            statuses = [lowering_status(name) for name in new]
            for status in statuses:
                if status["op"] in self.implicit:
                    status["explicit"] = False
                    status["implicit_logged"] = True
            self.session.write({"type": "lowering_info", "ops": statuses})
        except Exception as exc:  # diagnostics must never break the compile they watch: counted into the record
            report(self.session, "lowering watcher", exc)


class ImplicitFallbackFilter(logging.Filter):
    """Sees Inductor's INFO records; passes on only what the user's own logging config asked for."""

    def __init__(self, watcher: OutputCodeWatcher, user_level: int):
        super().__init__()
        self.watcher = watcher
        self.user_level = user_level

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            if isinstance(record.msg, str) and record.msg.startswith(IMPLICIT_MESSAGE):
                target = getattr(record.args[0] if record.args else None, "name", None)
                text = record.getMessage()
                for line in text.splitlines():
                    if line.strip().startswith("target:"):
                        target = line.split(":", 1)[1].strip()
                        break
                if target:
                    self.watcher.implicit.add(str(target))
        except Exception as exc:
            report(self.watcher.session, "implicit-fallback watcher", exc)
        return record.levelno >= self.user_level


def install(session: Any):
    from tdiag.tracer import trace_logger  # held through the program's own logging setup

    watcher = OutputCodeWatcher(session)
    detach = trace_logger.attach(watcher.emit, fallback=watcher)
    graph_logger = logging.getLogger(GRAPH_LOGGER)
    previous_level = graph_logger.level
    user_level = graph_logger.getEffectiveLevel()
    implicit_filter = ImplicitFallbackFilter(watcher, user_level)
    graph_logger.addFilter(implicit_filter)
    if user_level > logging.INFO:
        graph_logger.setLevel(logging.INFO)

    def undo() -> None:
        detach()
        graph_logger.removeFilter(implicit_filter)
        graph_logger.setLevel(previous_level)

    return undo
