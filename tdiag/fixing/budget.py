"""``tdiag fix --verify --budget S``: a time limit for the whole verification, kept by not starting a run that would
end past it.

On a GPU every re-run compiles the model again (Inductor, CUDA graphs): one set of GPT-2's patches costs a minute,
and a flow killed from outside loses every round it verified. With a budget the flow stops between runs instead:
before each re-run it checks that the run fits what is left, judged by the longest run so far (a patched program's
first run compiles cold and takes the longest; the analysis of its record is counted in). What was verified before
that stays: the rounds kept are applied and saved, and ``stopped`` says which run did not fit and why. Before the
first re-run ends, the recorded run's own length stands in for it (a UNet whose record run took most of the
budget was otherwise started, then killed from outside with nothing reported).
"""

from __future__ import annotations

import time
from collections.abc import Callable


class OutOfBudget(Exception):
    """The next run would end past the budget; the message says so in the user's words."""


class Budget:
    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.monotonic,
                 recorded_run_s: float | None = None):
        self.seconds = seconds
        self._clock = clock
        self._start = clock()
        self._longest = 0.0  # the longest run so far, its analysis included
        # until a re-run is measured: the recorded run's length (it compiled cold, so rarely shorter than a re-run)
        self._recorded = recorded_run_s or 0.0

    @property
    def elapsed(self) -> float:
        return self._clock() - self._start

    def check(self, what: str, runs: int = 1) -> None:
        """Raise OutOfBudget when ``runs`` runs of ``what``, each as long as the longest so far, would end past the
        budget."""
        if self.seconds is None:
            return
        elapsed = self.elapsed
        run_s = self._longest or self._recorded
        if elapsed + runs * run_s > self.seconds:
            expected = (f", about {run_s:.0f} s a run" + ("" if self._longest else " as recorded")) if run_s else ""
            raise OutOfBudget(f"the {self.seconds:g} s budget (--budget) left no time for {what} "
                              f"({elapsed:.0f} s spent{expected})")

    def untried(self, patches: list, runs: int) -> str:
        """What a stop left unmeasured, and about how long it would take: "untried: RUN002@train.py:40 (Compile with
        mode="reduce-overhead"), ...; about 2 more runs of ~120 s (~240 s)" ("" when nothing was left)."""
        if not patches:
            return ""
        run_s = self._longest or self._recorded
        cost = f"; about {runs} more run(s) of ~{run_s:.0f} s (~{runs * run_s:.0f} s)" if run_s else ""
        return "untried: " + ", ".join(f"{p.id} ({p.title})" for p in patches) + cost

    def ran(self, seconds: float, runs: int = 1) -> None:
        """``runs`` runs took ``seconds`` together."""
        self._longest = max(self._longest, seconds / runs)
