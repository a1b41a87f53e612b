"""Progress on tdiag's own long steps (the eager re-runs of ``--vs-eager``, analysing many ranks, big reports).

rich's transient progress on stderr, only when stderr is a terminal (a CI log or a pipe gets nothing), and never
while the user's program writes to the terminal: the steps shown here run when it is done or its output is discarded.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class Steps:
    """A task of ``total`` parts; ``advance(description)`` moves to the next one and says what it is."""

    def __init__(self, progress, task) -> None:
        self._progress, self._task = progress, task

    def describe(self, description: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=description)

    def advance(self, description: str | None = None) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, **({"description": description} if description else {}))


def shown_on(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except Exception:
        return False


@contextmanager
def progress(description: str, total: int | None = None, stream: TextIO | None = None,
             enabled: bool = True) -> Iterator[Steps]:
    """A spinner (``total`` None) or a bar of ``total`` parts, with the time elapsed, removed when done."""
    stream = sys.stderr if stream is None else stream
    if not enabled or not shown_on(stream):
        yield Steps(None, None)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(bar_width=20), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    with Progress(*columns, console=Console(file=stream, stderr=True), transient=True) as bar:
        yield Steps(bar, bar.add_task(description, total=total))
