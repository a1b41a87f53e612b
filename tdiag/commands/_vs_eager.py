"""``tdiag run --vs-eager``: once the program is done, run the same command again with torch.compile disabled.

The eager run is ``tdiag run`` itself in a subprocess, with ``TORCH_COMPILE_DISABLE=1`` and the same runtime window
(the compiled callables still enter tdiag's wrapper, so the window measures their eager steps), from the working
directory and environment the program started with. Its stdout and stderr are discarded and its exit status never
becomes ``tdiag run``'s: the user's run is the one that counts. Its stdout is kept in the event, to compare the
program's results with eager (analyzer/eager_parity.py), never shown. What each eager run measured (its exit code, its
window's per-step times) goes into the user's record as one ``eager_baseline`` event; the eager run's own record stays
beside it (``RUN_DIR/eager``) for a closer look. analyzer/eager_compare.py compares the two.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tdiag.analyzer.eager_compare import ENV, EVENT
from tdiag.record import RecordWriter, open_record

# The eager run gets at least this long, and this many times the compiled run's duration (a compiled run holds
# its compile time, an eager one does not, so an eager run that takes much longer is a hang or another program).
MIN_TIMEOUT_S = 120.0
STDOUT_LIMIT = 1_000_000
TIMEOUT_FACTOR = 4.0


def measure_eager(target, args, run_dir: Path, writer: RecordWriter, start: dict[str, Any], elapsed_s: float) -> bool:
    """Run ``args.vs_eager_runs`` eager runs and write the ``eager_baseline`` event; never raises. True when Ctrl-C
    interrupted them (the event says so; the caller ends as an interrupted command)."""
    runs: list[dict[str, Any]] = []
    reason = None
    timeout = max(MIN_TIMEOUT_S, TIMEOUT_FACTOR * elapsed_s)
    if not args.quiet:
        print(f"tdiag: running the program again with TORCH_COMPILE_DISABLE=1 to compare with eager "
              f"({args.vs_eager_runs} run(s), about as long as the compiled run; its output is compared, not shown)", file=sys.stderr)
    from tdiag.reports.progress import progress

    total = args.vs_eager_runs
    try:
        with progress(_step(1, total), total=total if total > 1 else None, enabled=not args.quiet) as steps:
            for i in range(total):
                name = "eager" if total == 1 else f"eager-{i + 1}"
                steps.describe(_step(i + 1, total))
                runs.append(_one(target, args, run_dir / name, start, timeout))
                steps.advance()
    except KeyboardInterrupt:
        reason = "the eager run was interrupted (Ctrl-C)"
    except Exception as exc:  # the comparison is extra: the user's run and its record stand without it
        reason = f"the eager run could not be started: {type(exc).__name__}: {exc}"
    event: dict[str, Any] = {"type": EVENT, "env": dict(ENV), "runs_asked": args.vs_eager_runs, "runs": runs}
    if reason:
        event["reason"] = reason
    writer.write(event)
    return reason is not None and "interrupted" in reason


def _step(i: int, total: int) -> str:
    return "tdiag: eager run" + (f" {i} of {total}" if total > 1 else "") + " (TORCH_COMPILE_DISABLE=1)"


def _one(target, args, record_dir: Path, start: dict[str, Any], timeout: float) -> dict[str, Any]:
    command = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record_dir)]
    if args.source_root:
        command += ["--source-root", args.source_root]
    if args.profile_window:
        command += ["--profile-window", args.profile_window]
    if target.kind == "module":
        command.append("-m")
    command += [target.name, *target.args]
    env = {**start["env"], **ENV}
    try:
        proc = subprocess.run(command, cwd=start["cwd"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=timeout, text=True, errors="replace")
    except subprocess.TimeoutExpired:
        return {"status": "not_measured", "record": record_dir.name,
                "reason": f"the eager run did not finish within {timeout:.0f} s"}
    code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode  # killed by a signal, as a shell says
    # what it printed: compared with the compiled run's output (analyzer/eager_parity.py), never shown as the program's
    run: dict[str, Any] = {"exit_code": code, "record": record_dir.name,
                           "stdout": proc.stdout[:STDOUT_LIMIT], "stdout_truncated": len(proc.stdout) > STDOUT_LIMIT}
    window = _window(record_dir)
    if window is None:
        run.update(status="not_measured", reason=f"the eager run (exit {code}) left no runtime window in its record")
    elif window.get("status") != "measured":
        run.update(status="not_measured", reason=str(window.get("reason") or "no window"))
    else:
        run.update(status="measured", steps=window.get("steps"), window_us=window.get("window_us"),
                   step_us=window.get("step_us") or [], partial=bool(window.get("partial")),
                   step_function=window.get("step_function"))
    return run


def _window(record_dir: Path) -> dict[str, Any] | None:
    """The eager record's ``runtime`` event (the lead rank's), or None."""
    try:
        for record in open_record(record_dir):
            for ev in record.events(blob_text=False):
                if ev.get("type") == "runtime":
                    return ev
    except Exception:  # no record, or a damaged one: not measured
        return None
    return None


def starting_point() -> dict[str, Any]:
    """The environment and working directory the program starts with: the program may change both in-process."""
    return {"env": dict(os.environ), "cwd": os.getcwd()}
