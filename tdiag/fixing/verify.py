"""Re-running the recorded command on a scratch copy of the project, under ``tdiag run``, and measuring it.

The copy is the project root without version control, virtual environments, caches and tdiag's own records; the
command runs from the recorded working directory mapped into the copy (a working directory outside the project
stays as it was), with the caller's environment plus the variables the user passes again with ``--env``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tdiag.errors import TdiagError
from tdiag.fixing.recorded import RecordedRun
from tdiag.lean_dataclass import lean_dataclass

NOT_COPIED = (".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", "tdiag-runs", ".mypy_cache",
              ".pytest_cache", ".ruff_cache", ".tox", "*.egg-info")
COPY_LIMIT_BYTES = 512 * 1024 * 1024


@lean_dataclass
class RunResult:
    label: str  # "before", "after", or a patch id under --each
    record_dir: Path
    exit_code: int
    stdout: str
    stderr_tail: str
    wall_s: float  # the whole `tdiag run` subprocess, torch import included


class Scratch:
    """A temporary folder holding copies of the project; removed on exit unless ``keep``."""

    def __init__(self, run: RecordedRun, keep: bool = False):
        from tdiag.fixing.rerun_window import rerun_window

        self.run, self.keep = run, keep
        self.window = rerun_window(run.record_dir)  # sized so the re-runs time steady steps (rerun_window.py)
        self.base = Path(tempfile.mkdtemp(prefix="tdiag-fix-"))

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc) -> None:
        if not self.keep:
            shutil.rmtree(self.base, ignore_errors=True)

    def copy(self, label: str, new_texts: dict[str, str]) -> Path:
        """A copy of the project root with ``new_texts`` (display path -> text) written over it."""
        root = self.run.root
        if not root.is_dir():
            raise TdiagError(f"the recorded project root {root} no longer exists")
        _check_size(root)
        dest = self.base / _safe(label) / root.name
        shutil.copytree(root, dest, symlinks=True, ignore=shutil.ignore_patterns(*NOT_COPIED))
        for path, text in new_texts.items():
            (dest / path).write_text(text, encoding="utf-8", errors="surrogateescape")
        return dest

    def rerun(self, label: str, copy_root: Path, env_overrides: dict[str, str], timeout: float | None,
              repeat: int = 1) -> RunResult:
        """One run of the recorded command on ``copy_root``; ``repeat`` > 1 names its record apart from the others."""
        run = self.run
        cwd, program = _mapped(run, copy_root)
        record_dir = self.base / _safe(label) / ("record" if repeat == 1 else f"record-{repeat}")
        command = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record_dir),
                   "--source-root", str(copy_root), *(["--profile-window", self.window] if self.window else [])]
        if run.kind == "module":
            command.append("-m")
        command += [program, *run.argv[1:]]
        env = {**os.environ, **env_overrides, "PYTHONUNBUFFERED": "1"}
        started = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                                  errors="replace")
        except subprocess.TimeoutExpired:
            raise TdiagError(f"the {label} run did not finish within {timeout:.0f} s (--timeout)") from None
        wall = time.perf_counter() - started
        if not (record_dir / "events.jsonl").exists():
            raise TdiagError(f"the {label} run left no record: {proc.stderr.strip()[-800:]}")
        return RunResult(label, record_dir, proc.returncode, proc.stdout, proc.stderr[-4000:], wall)


def _mapped(run: RecordedRun, copy_root: Path) -> tuple[Path, str]:
    """(working directory, program) for the copy: paths under the recorded root move into it."""
    root = run.root.resolve()

    def move(p: Path) -> Path | None:
        try:
            return copy_root / p.resolve().relative_to(root)
        except ValueError:
            return None

    cwd = move(run.cwd) or run.cwd
    program = run.argv[0]
    if run.kind == "script":
        moved = move(run.cwd / program)
        if moved is not None:
            program = str(moved)
    return cwd, program


def _check_size(root: Path) -> None:
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not any(Path(d).match(p) for p in NOT_COPIED)]
        for f in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
        if total > COPY_LIMIT_BYTES:
            raise TdiagError(
                f"the project root {root} holds over {COPY_LIMIT_BYTES >> 20} MB: too big for a scratch copy "
                "(record with `tdiag run --source-root DIR` on a smaller folder)"
            )


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
