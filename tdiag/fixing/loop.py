"""The ``tdiag fix`` flow, in order: plan the patches, verify them in rounds on scratch copies, apply, save.

Each step is its own module and they share one object per round (round.py): plan.py plans, rounds.py verifies,
apply.py writes, render.py prints, report.py and saved.py save. This module only puts them in order.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from tdiag.analyzer.model import Analysis
from tdiag.errors import TdiagError
from tdiag.fixing.plan import PlannedPatch, plan_patches
from tdiag.fixing.progress import Progress
from tdiag.fixing.recorded import RecordedRun, recorded_run
from tdiag.fixing.report import FixReport
from tdiag.fixing.safety import check_files
from tdiag.lean_dataclass import lean_dataclass


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
    # the user's extra allowance on printed floats beyond their own run-to-run spread (0: the spread alone)
    output_tolerance: float = 0.0
    parity: bool = True  # run the unchanged program once with torch.compile disabled: eager parity (output_noise.py)
    eager: bool = False  # also run the final program with torch.compile disabled: compiled vs eager
    budget: float | None = None  # seconds for the whole verification: no run starts that would end past it


def fix(record: str, analysis: Analysis, options: FixOptions, progress: Progress | None = None) -> FixReport:
    progress = progress or Progress()
    run = recorded_run(record, analysis.sources)
    progress.doing("planning the patches")
    report = progress.report = FixReport(record, plan_patches(analysis, options.select, options.ignore))
    chosen = report.chosen
    if not (options.apply or options.verify) or not (chosen or (options.verify and options.eager)):
        return report  # (a program without patches is still measured against eager with --verify --eager)
    if options.apply:
        # Check the user's files first: a refusal should not wait for minutes of verification.
        report.refusals = check_files(run.root, run.sources, sorted({p.path for p in chosen}), options.force)
        if report.refusals:
            report.not_applied = "nothing applied: every file must be safe to edit before any is written"
            return report
    if options.verify:
        if not _is_under(run.cwd, run.root):
            report.notes.append(
                f"the recorded working directory {run.cwd} is outside the project root {run.root}: the re-runs start "
                "there (only the project is copied; files the program writes relative to it land there)"
            )
        _verify(run, chosen, options, report, progress, analysis.run.duration_s)
    if options.apply and chosen:
        from tdiag.fixing.apply import apply_report

        progress.doing("writing the patched files")
        apply_report(run, report, options.force)
    if options.verify:
        from tdiag.fixing.saved import save_verification

        progress.doing("saving the verification next to the record")
        save_verification(run.record_dir, report.to_dict())
    return report


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def _verify(run: RecordedRun, chosen: list[PlannedPatch], options: FixOptions, report: FixReport,
            progress: Progress, recorded_run_s: float | None) -> None:
    from tdiag.fixing.rounds import verify_rounds
    from tdiag.fixing.verify import Scratch

    if len(list(run.record_dir.glob("events*.jsonl"))) > 1:
        raise TdiagError("--verify re-runs single-process programs; this record has several ranks")
    with Scratch(run, keep=options.keep_scratch) as scratch:
        progress.scratch = scratch
        report.verification = verify_rounds(run, chosen, options, scratch, progress, recorded_run_s)
        report.scratch = scratch.base if options.keep_scratch else None
