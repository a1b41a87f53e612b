"""The ``tdiag fix`` flow: plan the patches, verify them on scratch copies, apply them to the project."""

from __future__ import annotations

import json
import time
from dataclasses import field
from pathlib import Path
from typing import Any

from tdiag.analyzer.model import Analysis
from tdiag.errors import TdiagError
from tdiag.fixing.compare import Comparison
from tdiag.fixing.plan import PlannedPatch, by_file, merged_text, plan_patches
from tdiag.fixing.recorded import RecordedRun, recorded_run
from tdiag.fixing.safety import Refusal, check_files
from tdiag.fixing.stdout_match import DEFAULT_TOLERANCE
from tdiag.fixing.undo import Applied, write_with_backup
from tdiag.lean_dataclass import lean_dataclass

VERIFICATION_FILE = "verification.json"


@lean_dataclass
class FixOptions:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    apply: bool = False
    verify: bool = False
    each: bool = False
    force: bool = False
    env: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None
    keep_scratch: bool = False
    repeat: int = 2  # runs of each side: a timing verdict needs their spread
    max_rounds: int = 5
    output_tolerance: float = DEFAULT_TOLERANCE  # relative, on printed floats differing in their last digit
    eager: bool = False  # also run the final program with torch.compile disabled: compiled vs eager


@lean_dataclass
class FixReport:
    record: str
    patches: list[PlannedPatch]
    comparisons: list[Comparison] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    applied: Applied | None = None
    not_applied: str | None = None  # why --apply wrote nothing
    scratch: Path | None = None  # kept scratch folder (--keep-scratch)
    notes: list[str] = field(default_factory=list)  # what the user should know about how it was verified
    kept: list[PlannedPatch] | None = None  # --verify: the patches every round kept (the set --apply writes)
    final_texts: dict[str, str] | None = None  # --verify: each patched file's text after the kept rounds
    rounds: int = 0
    stopped: str = ""  # why the rounds ended
    eager: Any = None  # --eager: rounds.EagerBaseline

    @property
    def chosen(self) -> list[PlannedPatch]:
        return [p for p in self.patches if p.applied]

    @property
    def worse(self) -> bool:
        return any(not c.ok for c in self.comparisons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "record": self.record,
            "patches": [
                {"id": p.id, "path": p.path, "codes": p.codes, "title": p.title, "patch": p.patch,
                 "applied_together": p.applied, "held_back": p.held_back}
                for p in self.patches
            ],
            "verification": [c.to_dict() for c in self.comparisons],
            "refused": [vars(r) for r in self.refusals],
            "applied": None if self.applied is None else {
                "files": self.applied.files, "backup": str(self.applied.backup), "undo_manifest": str(self.applied.manifest),
            },
            "not_applied": self.not_applied,
            "notes": self.notes,
            "rounds": self.rounds,
            "stopped": self.stopped,
            "eager": None if self.eager is None else vars(self.eager),
            "kept": None if self.kept is None else [
                {"id": p.id, "path": p.path, "codes": p.codes, "title": p.title, "patch": p.patch} for p in self.kept
            ],
            "ok": not self.worse and not self.refusals,
        }


def fix(record: str, analysis: Analysis, options: FixOptions) -> FixReport:
    run = recorded_run(record, analysis.sources)
    patches = plan_patches(analysis, options.select, options.ignore)
    report = FixReport(record, patches)
    chosen = report.chosen
    if not (options.apply or options.verify) or not (chosen or (options.verify and options.eager)):
        return report  # (a program without patches is still measured against eager with --verify --eager)
    if options.apply:
        # Check the user's files first: a refusal should not wait for minutes of verification.
        report.refusals = check_files(run.root, run.sources, sorted(by_file(chosen)), options.force)
        if report.refusals:
            report.not_applied = "nothing applied: every file must be safe to edit before any is written"
            return report
    if options.verify:
        if not _is_under(run.cwd, run.root):
            report.notes.append(
                f"the recorded working directory {run.cwd} is outside the project root {run.root}: the re-runs start "
                "there (only the project is copied; files the program writes relative to it land there)"
            )
        _verify(run, chosen, options, report)
    if options.apply and chosen:
        texts, ids = new_texts(run, chosen), [p.id for p in chosen]
        if options.verify and report.kept:
            texts, ids = report.final_texts, [p.id for p in report.kept]
        elif options.verify and not options.force:
            report.not_applied = ("not applied: no patch verified and paid (see above); --force applies the first "
                                  "round's patches anyway")
            texts = {}
        if texts:
            # later rounds may patch files the first did not: every file is checked before any is written
            report.refusals = check_files(run.root, run.sources, sorted(texts), options.force)
            if report.refusals:
                report.not_applied = "nothing applied: every file must be safe to edit before any is written"
            else:
                report.applied = write_with_backup(run.record_dir, run.root, texts, ids)
    if options.verify:
        _save_verification(run, report)
    return report


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def new_texts(run: RecordedRun, patches: list[PlannedPatch]) -> dict[str, str]:
    """Display path -> patched text, every given patch merged into the recorded snapshot of its file."""
    return {path: merged_text(run.sources[path], group) for path, group in by_file(patches).items()}


def _verify(run: RecordedRun, chosen: list[PlannedPatch], options: FixOptions, report: FixReport) -> None:
    from tdiag.fixing.rounds import verify_rounds
    from tdiag.fixing.verify import Scratch

    if len(list(run.record_dir.glob("events*.jsonl"))) > 1:
        raise TdiagError("--verify re-runs single-process programs; this record has several ranks")
    with Scratch(run, keep=options.keep_scratch) as scratch:
        result = verify_rounds(run, chosen, options, scratch)
        report.scratch = scratch.base if options.keep_scratch else None
    report.comparisons, report.kept, report.final_texts = result.comparisons, result.kept, result.texts
    report.rounds, report.stopped, report.eager = result.rounds, result.stopped, result.eager


def _save_verification(run: RecordedRun, report: FixReport) -> None:
    """The result next to the record, where `tdiag report` and the TUI find it."""
    fix_dir = run.record_dir / "fix"
    try:
        fix_dir.mkdir(exist_ok=True)
        data = {"time": time.time(), **report.to_dict()}
        (fix_dir / VERIFICATION_FILE).write_text(json.dumps(data, indent=2, default=str) + "\n")
    except OSError:
        pass  # a read-only record still gets its result printed


def load_verification(record_dir: Path) -> dict[str, Any] | None:
    """The last ``--verify`` result saved next to a record, or None."""
    path = Path(record_dir) / "fix" / VERIFICATION_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def apply_finding_patch(record_dir: Path, analysis: Analysis, finding, force: bool = False) -> Applied:
    """Write one finding's patch (the TUI's `a` key), with the same refusals, backup and undo as ``--apply``."""
    from tdiag.fixing.plan import edits_of

    suggestion = finding.suggestion
    if suggestion is None or not suggestion.patch:
        raise TdiagError("this finding has no patch")
    run = recorded_run(str(record_dir), analysis.sources)
    patch = PlannedPatch(f"{finding.code}@{finding.path}:{finding.line}", finding.path, suggestion.patch,
                         suggestion.title, [finding.code], [finding], edits_of(suggestion.patch))
    refusals = check_files(run.root, run.sources, [patch.path], force)
    if refusals:
        raise TdiagError(f"not applied: {refusals[0].path} {refusals[0].detail}")
    return write_with_backup(run.record_dir, run.root, new_texts(run, [patch]), [patch.id])
