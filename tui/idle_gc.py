"""Full garbage collections moved from key presses to idle moments.

A large record keeps hundreds of thousands of objects alive (the Analysis, its index, Textual's cached strips).
CPython runs a full collection whenever enough of them survived the younger generations, and walking them all takes
100-200 ms: a pause at a random key press, far over the 50 ms budget. Here the Analysis is frozen out of collection,
automatic full collections are turned off while the app runs, and one runs after input has been quiet for a while.
"""

from __future__ import annotations

import gc
from time import monotonic

from textual.app import App

QUIET_S = 1.0  # how long without a key or click before a full collection may run
CHECK_EVERY_S = 0.5
NO_AUTOMATIC_FULL = 1_000_000  # gen1 collections between full ones: never, in practice


class IdleCollector:
    def __init__(self, app: App) -> None:
        self.app = app
        self._last_input = monotonic()
        self._pending = False  # has input happened since the last collection?
        self._saved: tuple[int, int, int] | None = None

    def start(self) -> None:
        gc.freeze()  # everything loaded so far (the Analysis, the index) lives as long as the app
        self._saved = gc.get_threshold()
        gc.set_threshold(self._saved[0], self._saved[1], NO_AUTOMATIC_FULL)
        self.app.set_interval(CHECK_EVERY_S, self._collect_if_quiet, name="idle-gc")

    def stop(self) -> None:
        # The process may go on (tests, an embedding program): hand everything back to the collector as it was.
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            gc.unfreeze()
            self._saved = None

    def saw_input(self) -> None:
        self._last_input = monotonic()
        self._pending = True

    def _collect_if_quiet(self) -> None:
        if self._pending and monotonic() - self._last_input >= QUIET_S:
            self._pending = False
            gc.collect()
