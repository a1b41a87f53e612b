"""tracer/trace_logger.py in-process: the held logger feeds tdiag's sink whatever the configuration, leaves the
program's handlers exactly what they would see without tdiag, and leaves no trace once detached."""

from __future__ import annotations

import logging

import torch  # noqa: F401 -- torch configures torch.__trace (level, isEnabledFor) on import, as in a real run
from tdiag.tracer import trace_logger


class Seen(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def emit(logger: logging.Logger) -> None:
    if logger.handlers:  # what torch's trace_structured checks before building an event
        logger.debug("", extra={"metadata": {"dynamo_start": {}}, "payload": None})


def test_sink_sees_everything_and_the_programs_handler_sees_what_its_config_allows():
    trace = logging.getLogger(trace_logger.TRACE_LOGGER)
    cls, handlers = type(trace), list(trace.handlers)
    sink, own = Seen(), Seen()
    detach = trace_logger.attach(sink.emit, fallback=sink)
    try:
        trace.addHandler(own)
        emit(trace)
        assert len(sink.records) == len(own.records) == 1
        trace.disabled = True  # what dictConfig(disable_existing_loggers=True) does to it
        emit(trace)
        assert (len(sink.records), len(own.records)) == (2, 1)
        trace.disabled = False
        trace.handlers.clear()  # every handler gone, the program's own included
        emit(trace)
        assert (len(sink.records), len(own.records)) == (3, 1)
        assert trace.handlers  # torch still builds its events
        # What dictConfig does to the children of a logger it configures (e.g. "torch"), done by hand here so as
        # not to reconfigure the test process (logging.config._handle_existing_loggers):
        trace.setLevel(logging.NOTSET)
        trace.handlers = []
        trace.propagate = True
        emit(trace)
        assert len(sink.records) == 4 and trace_logger.is_held()
    finally:
        detach()
        trace.disabled = False
        trace.propagate = False
        trace.setLevel(logging.DEBUG)
    assert type(trace) is cls and not trace_logger.is_held()
    assert all(type(h).__name__ != "_Anchor" for h in trace.handlers)
    trace.handlers[:] = handlers
