"""The ``tdiag fix`` flow: plan the patches, verify them on scratch copies, apply them to the project."""

from __future__ import annotations

import json
import time
from dataclasses import field
from pathlib import Path
from typing import Any

from tdiag.analyzer.model import Analysis
from tdiag.errors import TdiagError
from tdiag.fixing.compare import Comparison, compare
from tdiag.fixing.plan import PlannedPatch, by_file, merged_text, plan_patches
from tdiag.fixing.recorded import RecordedRun, recorded_run
from tdiag.fixing.safety import Refusal, check_files
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
            "ok": not self.worse and not self.refusals,
        }


def fix(record: str, analysis: Analysis, options: FixOptions) -> FixReport:
    run = recorded_run(record, analysis.sources)
    patches = plan_patches(analysis, options.select, options.ignore)
    report = FixReport(record, patches)
    chosen = report.chosen
    if not chosen or not (options.apply or options.verify):
        return report
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
        report.comparisons, report.scratch = _verify(run, chosen, options)
    if options.apply:
        if report.worse and not options.force:
            report.not_applied = "not applied: the verification found the patched run worse (see above); --force applies anyway"
        else:
            report.applied = write_with_backup(run.record_dir, run.root, new_texts(run, chosen), [p.id for p in chosen])
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


def _verify(run: RecordedRun, chosen: list[PlannedPatch], options: FixOptions) -> tuple[list[Comparison], Path | None]:
    from tdiag.analyzer import build
    from tdiag.fixing.verify import Scratch

    if len(list(run.record_dir.glob("events*.jsonl"))) > 1:
        raise TdiagError("--verify re-runs single-process programs; this record has several ranks")
    variants: list[tuple[str, list[PlannedPatch]]] = [("all patches", chosen)]
    if options.each and len(chosen) > 1:
        variants += [(p.id, [p]) for p in chosen]
    with Scratch(run, keep=options.keep_scratch) as scratch:
        # The baseline runs again too, on an unpatched copy: the record has no stdout, and times are only
        # comparable between runs on the same machine state.
        base = scratch.rerun("before", scratch.copy("before", {}), options.env, options.timeout)
        baseline = (build(base.record_dir), base)
        comparisons = []
        for label, group in variants:
            copy = scratch.copy(label, new_texts(run, group))
            result = scratch.rerun(label, copy, options.env, options.timeout)
            comparisons.append(compare(label, [p.id for p in group], baseline, (build(result.record_dir), result)))
        return comparisons, scratch.base if options.keep_scratch else None


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
