"""Where a run's record goes: ``./tdiag-runs/<program>-<timestamp>/`` unless ``-o DIR`` says otherwise."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tdiag.errors import TdiagError
from tdiag.record import record_file_name

DEFAULT_PARENT = "tdiag-runs"


def current_rank() -> int | None:
    """The distributed rank of this process (torchrun sets RANK), or None for a single process."""
    rank = os.environ.get("RANK")
    if rank is not None and rank.isdigit() and os.environ.get("WORLD_SIZE", "1") != "1":
        return int(rank)
    return None


def choose_run_dir(output: str | None, label: str) -> Path:
    if output:
        return Path(output)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    if current_rank() is not None:
        # Every rank must agree on one directory: torchrun's run id, or else the elastic agent that started them all.
        run_id = os.environ.get("TORCHELASTIC_RUN_ID")
        shared = run_id if run_id and run_id != "none" else f"agent{os.getppid()}"
        return Path(DEFAULT_PARENT) / f"{label}-{shared}"
    base = Path(DEFAULT_PARENT) / f"{label}-{stamp}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def prepare(run_dir: Path, rank: int | None) -> Path:
    """Create the directory and check it is writable, before the program starts."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TdiagError(f"cannot create the record directory {run_dir}: {exc.strerror or exc}") from None
    if not os.access(run_dir, os.W_OK):
        raise TdiagError(f"the record directory {run_dir} is not writable")
    return run_dir / record_file_name(rank)
