"""What one `tdiag fix` did: the planned patches, the rounds of ``--verify``, the refusals and what ``--apply`` wrote.

The rounds are held, not copied: ``verification`` is the object the rounds filled (round.py). ``to_dict`` is both
``tdiag fix --format json`` and the record's ``fix/verification.json`` (saved.py), whose keys docs/analysis-json.md
lists; ``round_outcomes`` says per round what it kept or refused and why.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tdiag.analyzer.fix_status import finding_key
from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.fixing.compare import Comparison
    from tdiag.analyzer.output_noise import OutputBaseline
    from tdiag.fixing.plan import PlannedPatch
    from tdiag.fixing.round import EagerBaseline, Round, Verification
    from tdiag.fixing.safety import Refusal
    from tdiag.fixing.undo import Applied


@lean_dataclass
class FixReport:
    record: str
    patches: list[PlannedPatch]
    verification: Verification | None = None  # --verify: its rounds
    refusals: list[Refusal] = field(default_factory=list)
    applied: Applied | None = None
    not_applied: str | None = None  # why --apply wrote nothing
    scratch: Path | None = None  # kept scratch folder (--keep-scratch)
    notes: list[str] = field(default_factory=list)  # what the user should know about how it was verified

    @property
    def chosen(self) -> list[PlannedPatch]:
        return [p for p in self.patches if p.applied]

    @property
    def rounds(self) -> list[Round]:
        return self.verification.rounds if self.verification else []

    @property
    def comparisons(self) -> list[Comparison]:
        return self.verification.comparisons if self.verification else []

    @property
    def kept(self) -> list[PlannedPatch] | None:
        """--verify: the patches every round kept (the set --apply writes); None without --verify."""
        return self.verification.kept if self.verification else None

    @property
    def eager(self) -> EagerBaseline | None:
        return self.verification.eager if self.verification else None

    @property
    def output(self) -> OutputBaseline | None:
        """--verify: the original program's outputs (their own spread, eager parity): what every round is judged by."""
        return self.verification.output if self.verification else None

    @property
    def worse(self) -> bool:
        return any(not c.ok for c in self.comparisons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "record": self.record,
            "patches": [
                {"id": p.id, "path": p.path, "codes": p.codes, "title": p.title, "patch": p.patch,
                 "applied_together": p.applied, "held_back": p.held_back,
                 # every finding it answers, as analyzer/fix_status.py reads them back onto the findings
                 "findings": [finding_key(f) for f in p.findings] or [p.id]}
                for p in self.patches
            ],
            "verification": [c.to_dict() for c in self.comparisons],
            "refused": [vars(r) for r in self.refusals],
            "applied": None if self.applied is None else {
                "files": self.applied.files, "backup": str(self.applied.backup), "undo_manifest": str(self.applied.manifest),
            },
            "not_applied": self.not_applied,
            "notes": self.notes,
            "rounds": len(self.rounds),
            "round_outcomes": [r.to_dict() for r in self.rounds],
            "stopped": self.verification.stopped if self.verification else "",
            "eager": None if self.eager is None else vars(self.eager),
            "output": None if self.output is None else {
                "noise": self.output.words, "parity": vars(self.output.parity),
            },
            "kept": None if self.kept is None else [
                {"id": p.id, "path": p.path, "codes": p.codes, "title": p.title, "patch": p.patch} for p in self.kept
            ],
            "ok": not self.worse and not self.refusals,
        }
