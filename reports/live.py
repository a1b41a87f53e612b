"""The live status line while a long compile runs: rich's transient status on stderr, only during compiles.

It is shown only between a compile's start and end (the program itself is paused then), and removed before the
program continues, so the program's own output is never interleaved with it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

if TYPE_CHECKING:  # the capture defines the event; reports never import the tracer (or torch) at run time
    from tdiag.tracer.progress import CompileProgress

SHOW_AFTER_S = 0.5  # short compiles never flash a status line


class LiveStatus:
    def __init__(self, stream: TextIO):
        self.console = Console(file=stream, stderr=True)
        self.breaks = 0
        self.recompiles = 0
        self.graphs = 0
        self._status = None
        self._timer: threading.Timer | None = None
        self._current = ""
        self._lock = threading.Lock()

    def on_progress(self, event: CompileProgress) -> None:
        if event.kind == "compile_start":
            with self._lock:
                self._current = event.what or "compile"
                self._cancel_timer()
                self._timer = threading.Timer(SHOW_AFTER_S, self._show)
                self._timer.daemon = True
                self._timer.start()
        elif event.kind == "compile_end":
            self._hide()
        elif event.kind == "graph_break":
            self.breaks += 1
            self._update()
        elif event.kind == "recompile":
            self.recompiles += 1
            self._update()
        elif event.kind == "frame":
            if event.what:
                self._current = event.what
            self._update()
        elif event.kind == "compiled":
            self.graphs += 1

    def _text(self) -> str:
        return (
            f"tdiag: compiling {self._current}  "
            f"({self.graphs} compiled, {self.breaks} breaks, {self.recompiles} recompiles)"
        )

    def _show(self) -> None:
        with self._lock:
            if self._status is None:
                self._status = self.console.status(self._text(), spinner="dots")
                self._status.start()

    def _update(self) -> None:
        with self._lock:
            if self._status is not None:
                self._status.update(self._text())

    def _hide(self) -> None:
        with self._lock:
            self._cancel_timer()
            if self._status is not None:
                self._status.stop()
                self._status = None

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def stop(self) -> None:
        self._hide()
