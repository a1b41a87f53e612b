"""Writing patches to the user's project: what ``--apply`` writes after the rounds, and the TUI's one-patch apply.

Every file is checked before any is written (safety.py), and the write keeps a backup and an undo manifest (undo.py).
Ctrl-C while the files are written waits until they and their manifest are: the project is never left half patched
without a way back.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from pathlib import Path

from tdiag.errors import TdiagError
from tdiag.fixing.plan import PlannedPatch, by_file, edits_of, merged_text
from tdiag.fixing.recorded import RecordedRun, recorded_run
from tdiag.fixing.report import FixReport
from tdiag.fixing.safety import check_files
from tdiag.fixing.undo import Applied, write_with_backup

NOT_SAFE = "nothing applied: every file must be safe to edit before any is written"


def new_texts(run: RecordedRun, patches: list[PlannedPatch]) -> dict[str, str]:
    """Display path -> patched text, every given patch merged into the recorded snapshot of its file."""
    return {path: merged_text(run.sources[path], group) for path, group in by_file(patches).items()}


def apply_report(run: RecordedRun, report: FixReport, force: bool) -> None:
    """Write what the report chose: the rounds' kept set after --verify, else every chosen patch."""
    texts, ids = new_texts(run, report.chosen), [p.id for p in report.chosen]
    if report.verification is not None:
        if report.kept:
            texts, ids = report.verification.texts, [p.id for p in report.kept]
        elif not force:
            report.not_applied = ("not applied: no patch verified and paid (see above); --force applies the first "
                                  "round's patches anyway")
            return
    if not texts:
        return
    # later rounds may patch files the first did not: every file is checked before any is written
    report.refusals = check_files(run.root, run.sources, sorted(texts), force)
    if report.refusals:
        report.not_applied = NOT_SAFE
        return
    with _ctrl_c_waits():
        report.applied = write_with_backup(run.record_dir, run.root, texts, ids)


def apply_finding_patch(record_dir: Path, analysis, finding, force: bool = False) -> Applied:
    """Write one finding's patch (the TUI's `a` key), with the same refusals, backup and undo as ``--apply``."""
    suggestion = finding.suggestion
    if suggestion is None or not suggestion.patch:
        raise TdiagError("this finding has no patch")
    run = recorded_run(str(record_dir), analysis.sources)
    patch = PlannedPatch(f"{finding.code}@{finding.path}:{finding.line}", finding.path, suggestion.patch,
                         suggestion.title, [finding.code], [finding], edits_of(suggestion.patch))
    refusals = check_files(run.root, run.sources, [patch.path], force)
    if refusals:
        raise TdiagError(f"not applied: {refusals[0].path} {refusals[0].detail}")
    with _ctrl_c_waits():
        return write_with_backup(run.record_dir, run.root, new_texts(run, [patch]), [patch.id])


@contextmanager
def _ctrl_c_waits():
    """SIGINT held back while the block runs and delivered after it (KeyboardInterrupt then, not half-way)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
