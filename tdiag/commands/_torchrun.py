"""``tdiag run --nproc-per-node N``: launch N ranks through torchrun, each under ``tdiag run``, into one run directory.

The launcher chooses the run directory before any rank starts and passes it to every rank as ``-o DIR``, so the
ranks never have to agree on a name among themselves; each rank writes its own ``events.rank{R}.jsonl`` there.
Ranks run quietly (``-q --no-tui``): the launcher prints one summary of the merged analysis once all ranks are
done, which is the only point at which every rank's record is complete.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tdiag.commands._after_run import show_results
from tdiag.errors import TdiagError
from tdiag.rundir import choose_run_dir
from tdiag.tracer import runner


def launch(args: argparse.Namespace) -> int:
    if args.nproc_per_node < 1:
        raise TdiagError("--nproc-per-node must be at least 1")
    target = runner.Target("module" if args.as_module else "script", args.program, list(args.args))
    runner.validate(target)
    run_dir = choose_run_dir(args.output, target.label)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TdiagError(f"cannot create the record directory {run_dir}: {exc.strerror or exc}") from None
    command = torchrun_command(args, run_dir)
    try:
        # torchrun forwards SIGINT/SIGTERM to the ranks and reports a failing rank with its own exit code.
        exit_code = subprocess.call(command)
    except KeyboardInterrupt:
        exit_code = 130
    # The launcher is the one process that reports, whatever the ranks' exit status: a failed job keeps its summary.
    show_results(args, run_dir, lead=True)
    if exit_code != 0 and every_rank_finished(run_dir, args.nproc_per_node):
        print(FAILED_AFTER_FINISH, file=sys.stderr)
    return exit_code


FAILED_AFTER_FINISH = (
    "tdiag: every rank's program ran to its end (each record ends with exit 0); the failure torchrun reports "
    "came afterwards, while the ranks' Python shut down. With gloo and DDP this is torch's own exit abort "
    "('terminate called without an active exception'), which happens without tdiag too: docs/multi-rank-exit.md"
)


def every_rank_finished(run_dir: Path, ranks: int) -> bool:
    """Every rank's record holds the program's normal end."""
    from tdiag.record import open_record

    try:
        files = open_record(run_dir)
        return len(files) == ranks and all(program_finished(rf) for rf in files)
    except Exception:  # an unreadable record says nothing either way; the summary already reported it
        return False


def program_finished(record_file) -> bool:
    """The rank's program returned with status 0 and tdiag recorded it (torchrun's SIGTERM to a surviving rank may
    add a later exit event)."""
    return any(ev["type"] == "exit" and ev.get("reason") == "exit" and ev.get("code") == 0 for ev in record_file.events())


def torchrun_command(args: argparse.Namespace, run_dir: Path) -> list[str]:
    """``python -m torch.distributed.run --standalone --nproc-per-node N -m tdiag run -o DIR -q --no-tui [opts] program args``."""
    rank_options = ["-o", str(run_dir), "-q", "--no-tui"]
    if args.source_root:
        rank_options += ["--source-root", str(Path(args.source_root).resolve())]
    if args.deep:
        rank_options.append("--deep")
    if getattr(args, "no_profile", False):
        rank_options.append("--no-profile")
    elif getattr(args, "profile_window", None):
        rank_options += ["--profile-window", args.profile_window]
    for pattern in args.redact:
        rank_options += ["--redact", pattern]
    if args.as_module:
        rank_options.append("-m")
    return [
        # --standalone: a private rendezvous on a free port, so two jobs on one machine do not collide
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(args.nproc_per_node),
        "-m", "tdiag", "run", *rank_options, args.program, *args.args,
    ]
