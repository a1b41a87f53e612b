"""One round of `tdiag fix --verify`: the patches it tried, how each set measured, what it kept or refused and why.

The one object the fix flow passes along: planning fills ``patches`` (plan.py, from the previous kept run's record),
verifying adds an ``attempts`` entry per measured set and decides ``kept`` and ``why`` (rounds.py), applying writes
the kept patches of every round (apply.py), rendering prints each round (render.py) and saving writes
``to_dict`` (report.py, saved.py).
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.fixing.compare import Comparison
    from tdiag.analyzer.output_noise import OutputBaseline
    from tdiag.fixing.plan import PlannedPatch


@lean_dataclass
class Round:
    number: int  # 1 for the record's own patches, then one per kept run re-analysed
    patches: list[PlannedPatch]  # what the round tried, together first
    attempts: list[Comparison] = field(default_factory=list)  # each set measured, in order: together, alone, paying
    kept: list[PlannedPatch] = field(default_factory=list)  # the set it keeps (empty: it refused every set)
    why: str = ""  # why it kept that set, or why it kept nothing

    @property
    def refused(self) -> bool:
        return not self.kept

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "patches": [p.id for p in self.patches],
            "kept": [p.id for p in self.kept],
            "why": self.why,
            "attempts": [c.label for c in self.attempts],
        }


@lean_dataclass
class EagerBaseline:
    """The final program run with TORCH_COMPILE_DISABLE=1 under `tdiag run` (its window measures eager steps too)."""

    step_times_s: list[float]
    compiled_step_times_s: list[float]
    exit_code: int
    verdict: str  # "compiled slower than eager", "compiled faster than eager", "no verdict", "not measured"
    detail: str
    cause: str | None = None  # where the compiled step's time goes, when it is slower (shared with RUN003)


@lean_dataclass
class Verification:
    """Every round of one `tdiag fix --verify`, and what they add up to."""

    rounds: list[Round] = field(default_factory=list)  # the rounds that measured something, in order
    texts: dict[str, str] = field(default_factory=dict)  # display path -> final text (every round's kept set)
    stopped: str = ""  # why the rounds ended
    eager: EagerBaseline | None = None  # --eager: the final program with torch.compile disabled
    # the original program's outputs: their own run-to-run spread and eager parity (output_noise.py)
    output: OutputBaseline | None = None

    @property
    def comparisons(self) -> list[Comparison]:
        return [c for r in self.rounds for c in r.attempts]

    @property
    def kept(self) -> list[PlannedPatch]:
        """Every round's kept patches, in order: the set --apply writes."""
        return [p for r in self.rounds for p in r.kept]
