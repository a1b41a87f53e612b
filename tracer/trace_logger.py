"""tdiag's hold on torch's structured-trace logger, kept through whatever logging setup the program does.

Programs reconfigure logging: ``dictConfig``/``fileConfig`` (their default ``disable_existing_loggers=True`` disables
every logger that exists, ``torch.__trace`` included, and configuring a parent such as ``torch`` empties its
children's handlers), ``logging.disable``, handlers cleared, levels raised. Any of these blinds a plain handler, and
torch builds trace events only while that logger has handlers at all.

So while a capture runs, the one ``torch.__trace`` logger object gets a subclass of its own class (``__class__`` is
swapped, nothing else about the object changes): tdiag's sinks receive every record torch logs whatever the logger's
configuration, while the program's and torch's own handlers (TORCH_TRACE) see exactly what that configuration lets
through, as without tdiag. Only compile-time trace events pass this logger, so the cost per training step is zero.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

TRACE_LOGGER = "torch.__trace"
Sink = Callable[[logging.LogRecord], None]

_lock = threading.Lock()


class _Anchor(logging.Handler):
    """Keeps ``handlers`` non-empty, so torch builds its events; records reach the sinks through ``handle``."""

    def emit(self, record: logging.LogRecord) -> None:
        pass


class _HeldLogger(logging.Logger):
    """Mixed in before the logger's own class (see ``_held_class``); the state lives in the instance ``__dict__``."""

    _tdiag_base: type[logging.Logger] = logging.Logger

    @property
    def handlers(self) -> list[logging.Handler]:
        handlers = self.__dict__["handlers"]
        anchor = self.__dict__.get("_tdiag_anchor")
        if anchor is not None and anchor not in handlers:  # cleared, replaced or removed by the program: re-attach
            handlers.append(anchor)
        return handlers

    @handlers.setter
    def handlers(self, value: list[logging.Handler]) -> None:
        self.__dict__["handlers"] = value

    @property
    def isEnabledFor(self) -> Callable[[int], bool]:  # torch sets its own as an instance attribute: keep it aside
        return self._tdiag_enabled

    @isEnabledFor.setter
    def isEnabledFor(self, function: Callable[[int], bool]) -> None:
        self.__dict__["isEnabledFor"] = function

    def _tdiag_enabled(self, level: int) -> bool:
        return bool(self.__dict__.get("_tdiag_sinks")) or self._tdiag_user_enabled(level)

    def _tdiag_user_enabled(self, level: int) -> bool:
        own = self.__dict__.get("isEnabledFor")
        return own(level) if own is not None else self._tdiag_base.isEnabledFor(self, level)

    def handle(self, record: logging.LogRecord) -> None:
        for sink in self.__dict__.get("_tdiag_sinks", ()):
            sink(record)  # sinks never raise: each counts its own failures
        # The rest is what the program's configuration lets through, as without tdiag: torch logs only while the
        # logger has handlers of its own (say TORCH_TRACE's), so with none but the anchor nothing else sees the record.
        anchor = self.__dict__.get("_tdiag_anchor")
        if any(h is not anchor for h in self.__dict__["handlers"]) and self._tdiag_user_enabled(record.levelno):
            self._tdiag_base.handle(self, record)


_classes: dict[type, type] = {}


def _held_class(base: type[logging.Logger]) -> type[logging.Logger]:
    if base not in _classes:
        _classes[base] = type(f"TdiagHeld{base.__name__}", (_HeldLogger, base), {"_tdiag_base": base})
    return _classes[base]


def attach(sink: Sink, fallback: logging.Handler) -> Callable[[], None]:
    """Deliver every structured-trace record to ``sink``; return the undo.

    Where the logger cannot be held (not a ``logging.Logger``, or its class cannot be swapped) ``fallback`` is added
    as an ordinary handler instead, which a logging reconfiguration can detach.
    """
    logger = logging.getLogger(TRACE_LOGGER)
    with _lock:
        try:
            if not isinstance(logger, _HeldLogger):
                logger.__class__ = _held_class(type(logger))
        except TypeError:
            logger.addHandler(fallback)
            return lambda: logger.removeHandler(fallback)
        state = logger.__dict__
        state["_tdiag_sinks"] = (*state.get("_tdiag_sinks", ()), sink)
        state.setdefault("_tdiag_anchor", _Anchor())
        logger.handlers  # noqa: B018 -- attaches the anchor

    def undo() -> None:
        with _lock:
            state["_tdiag_sinks"] = tuple(s for s in state.get("_tdiag_sinks", ()) if s is not sink)
            if state["_tdiag_sinks"]:
                return
            anchor = state.pop("_tdiag_anchor", None)
            del state["_tdiag_sinks"]
            if anchor in state["handlers"]:
                state["handlers"].remove(anchor)
            if isinstance(logger, _HeldLogger):
                logger.__class__ = logger._tdiag_base

    return undo


def is_held() -> bool:
    """Whether tdiag's sinks are on the logger (the program may have swapped its class back, say)."""
    logger = logging.getLogger(TRACE_LOGGER)
    return isinstance(logger, _HeldLogger) and bool(logger.__dict__.get("_tdiag_sinks"))
