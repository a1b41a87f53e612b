"""Ctrl-C in tdiag's own work: one line that says what was interrupted and what was kept, exit 130, no traceback.

A command names what it is doing with ``phase("writing the HTML report", kept="the record in DIR is unchanged")``;
a KeyboardInterrupt inside becomes an ``Interrupted`` carrying both, which ``tdiag.cli.main`` prints as one line.
The user's program's own KeyboardInterrupt is never one of these: ``tdiag run`` passes it on as python does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process ended by Ctrl-C


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while tdiag was ``doing`` something; ``kept`` says what is left on disk (or what was cleaned)."""

    def __init__(self, doing: str, kept: str = ""):
        super().__init__(doing)
        self.doing, self.kept = doing, kept


@contextmanager
def phase(doing: str, kept: str = "") -> Iterator[None]:
    try:
        yield
    except Interrupted:
        raise  # an inner phase already said what it was doing
    except KeyboardInterrupt:
        raise Interrupted(doing, kept) from None


def interrupted_line(command: str, exc: KeyboardInterrupt) -> str:
    """``tdiag report: interrupted while writing the HTML report; the record in r/ is unchanged``."""
    if isinstance(exc, Interrupted):
        line = f"tdiag {command}: interrupted while {exc.doing}"
        return f"{line}; {exc.kept}" if exc.kept else line
    return f"tdiag {command}: interrupted"
