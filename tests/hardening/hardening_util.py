"""Helpers shared by the hardening tests: plain-vs-tdiag runs, record line counts, result files for the report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
FIXTURES = HERE.parent / "programs"  # the shared fixture programs of tests/
REPO = HERE.parents[1]
RESULTS = REPO / "test-artifacts" / "reliability"


def plain(args: list[str], env: dict, cwd: Path = PROGRAMS, timeout: int = 300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, timeout=timeout, **kw)


def under_tdiag(run_dir: Path, args: list[str], env: dict, cwd: Path = PROGRAMS, tdiag_opts: tuple = (),
                timeout: int = 300, **kw) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), *tdiag_opts, *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout, **kw)


def complete_lines(path: Path) -> int:
    """Lines of the file that end in a newline and parse as JSON: what a reader must give back (header included)."""
    n = 0
    with open(path, "rb") as fh:
        for raw in fh:
            if raw.endswith(b"\n"):
                try:
                    json.loads(raw)
                except ValueError:
                    continue
                n += 1
    return n


def loaded_events(record) -> int:
    """Events the analyzer's loader took in (every type, before it drops what no analysis reads)."""
    from tdiag.record import open_record

    total = 0
    for rf in open_record(record):
        for _ in rf.events():
            total += 1
    return total


def report(key: str, area: str, what: str, cases: int, outcome: str, subset: bool = False) -> None:
    """One row of docs/reliability.md; written by the test that measured it (no timestamps, no absolute paths).

    ``subset``: these cases are also counted in another row (not added twice to the total)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", key)
    row = {"key": key, "area": area, "what": what, "cases": cases, "outcome": outcome, "subset": subset}
    (RESULTS / f"{safe}.json").write_text(json.dumps(row, indent=1, sort_keys=True) + "\n")
