"""What `tdiag fix` is doing now: a rich progress line on stderr while it verifies, and the words Ctrl-C reports.

Each re-run of the program takes seconds to minutes, so ``--verify`` shows which round, which patch set, which run
of ``--repeat``, the runs left and the time elapsed. The line is drawn only when stderr is a terminal (nothing in
CI logs or pipes) and is removed when the work ends, so the report that follows reads as without it. The runs left
are those known so far: a round that does not pay together adds its patches alone, and each new round adds its own.
"""

from __future__ import annotations

from typing import Any

LABELS = {"before": "the program unpatched", "eager": "the final program with torch.compile disabled"}


class Progress:
    """The current step in words (``now``) and run counts; drawn on stderr when ``show`` is set."""

    def __init__(self, show: bool = False):
        self.now = "reading the record"
        self.done = self.planned = 0
        self._set = ""
        self.scratch: Any = None  # verify.Scratch while the re-runs have one
        self.report: Any = None  # report.FixReport once the patches are planned (what --apply wrote, if it did)
        self._bar: Any = None  # rich.progress.Progress while shown
        self._task: Any = None
        if show:
            self._start()

    @classmethod
    def on_terminal(cls) -> Progress:
        """A progress line on stderr when it is a terminal; otherwise the words only."""
        import sys

        return cls(show=sys.stderr.isatty())

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        console = Console(stderr=True)
        if not console.is_terminal:
            return
        self._bar = Bar(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(bar_width=20),
                        TextColumn("{task.fields[left]}"), TimeElapsedColumn(), console=console, transient=True)
        self._task = self._bar.add_task(self.now, total=None, left="")
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def doing(self, words: str) -> None:
        self.now = words
        self._draw()

    def expect(self, runs: int) -> None:
        """``runs`` more re-runs of the program are now known to come."""
        self.planned += runs
        self._draw()

    def round(self, number: int, label: str, patches: int) -> None:
        self._set = f"round {number}: {label} ({patches} patch{'es' if patches != 1 else ''})"

    def describe(self, label: str) -> str:
        """The set a run of ``label`` belongs to, in words."""
        return LABELS.get(label, self._set or label)

    def running(self, label: str, run: int, of: int) -> None:
        self.now = f"{self.describe(label)}, run {run} of {of}"
        self._draw()

    def in_set(self, words: str) -> None:
        """A step of the current patch set that is not one of ``--repeat`` runs (a cache fix's populating run)."""
        self.doing(f"{self._set}: {words}" if self._set else words)

    def ran(self) -> None:
        self.done += 1
        self._draw()

    def _draw(self) -> None:
        if self._bar is None:
            return
        left = max(self.planned - self.done, 0)
        self._bar.update(self._task, description=self.now, completed=self.done, total=self.planned or None,
                         left=f"{left} run{'s' if left != 1 else ''} left")
