"""Every failure the capture swallows is counted into the record, so an incomplete capture never reads as an all-clear.

Hooks must never raise into torch or the program, so they catch what goes wrong; they hand it here instead of
dropping it. The first failure of each kind is written at once (a run that dies later still says so), the final
count when the session closes. Event: ``{"type": "capture_problem", "what", "exception", "message", "count", "torch"}``; a touchpoint this torch lacks
is one with ``exception: "missing"`` and what was lost as its message.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

MAX_MESSAGE = 300
MISSING = "missing"  # the exception field of a touchpoint this torch lacks (no exception was raised)


class CaptureProblems:
    def __init__(self, write: Callable[[dict[str, Any]], None]):
        self._write = write
        self._counts: Counter[tuple[str, str]] = Counter()
        self._messages: dict[tuple[str, str], str] = {}
        self._written: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()
        self._torch = _torch_version()

    def failed(self, what: str, exc: BaseException) -> None:
        """``what`` names the capture part that failed (e.g. ``trace handler``); never raises."""
        key = (what, type(exc).__name__)
        with self._lock:
            self._counts[key] += 1
            first = self._counts[key] == 1
            if first:
                self._messages[key] = str(exc)[:MAX_MESSAGE]
        if first:
            self._emit(key, 1)

    def missing(self, touchpoint: str, lost: str) -> None:
        """A private torch touchpoint this torch lacks (tracer/torch_compat.py): ``lost`` is what the record is
        without. Once per touchpoint; never raises."""
        key = (touchpoint, MISSING)
        with self._lock:
            if key in self._counts:
                return
            self._counts[key] = 1
            self._messages[key] = lost[:MAX_MESSAGE]
        self._emit(key, 1)

    def flush(self) -> None:
        """Write the final count of every kind that failed again since its first event."""
        with self._lock:
            pending = [(key, n) for key, n in self._counts.items() if self._written.get(key) != n]
        for key, n in pending:
            self._emit(key, n)

    @property
    def total(self) -> int:
        return sum(self._counts.values())

    def _emit(self, key: tuple[str, str], count: int) -> None:
        what, exception = key
        event = {"type": "capture_problem", "what": what, "exception": exception, "message": self._messages[key],
                 "count": count, "torch": self._torch}
        try:
            self._write(event)
            self._written[key] = count
        except Exception:  # the record itself is failing: RecordWriter already said so on stderr
            pass


def _torch_version() -> str | None:
    try:
        import torch

        return str(torch.__version__)
    except Exception:
        return None
