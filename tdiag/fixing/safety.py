"""Refusals before writing the user's files: outside the project root, changed since the capture, uncommitted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class Refusal:
    path: str
    reason: str  # "outside", "missing", "stale", "dirty"
    detail: str


def inside_root(root: Path, display_path: str) -> Path | None:
    """The file a display path names, or None when it resolves outside the project root (``..``, symlinks)."""
    if display_path.startswith("<") or Path(display_path).is_absolute():
        return None
    target = (root / display_path).resolve()
    try:
        target.relative_to(root.resolve())
    except ValueError:
        return None
    return target


def check_files(root: Path, sources: dict[str, str], paths: list[str], force: bool) -> list[Refusal]:
    """Why each of ``paths`` may not be edited. ``force`` lets dirty (uncommitted) and stale files through;
    a file outside the root or without a snapshot is never edited."""
    refusals: list[Refusal] = []
    dirty = uncommitted(root, paths)
    for path in paths:
        target = inside_root(root, path)
        if target is None:
            refusals.append(Refusal(path, "outside", "outside the project root: tdiag edits nothing there"))
            continue
        if path not in sources:
            refusals.append(Refusal(path, "missing", "the record holds no snapshot of it"))
            continue
        if not target.is_file():
            refusals.append(Refusal(path, "missing", "the file no longer exists"))
            continue
        if force:
            continue
        if target.read_text(encoding="utf-8", errors="surrogateescape") != sources[path]:
            refusals.append(Refusal(path, "stale", "changed since the capture: rerun `tdiag run` for fresh patches, or --force"))
        elif path in dirty:
            refusals.append(Refusal(path, "dirty", "has uncommitted git changes: commit or stash them first, or --force"))
    return refusals


def uncommitted(root: Path, paths: list[str]) -> set[str]:
    """The display paths among ``paths`` with changes git has not committed (staged or not).
    Empty when ``root`` is not in a git work tree (nothing to lose track of) or git is not installed."""
    git = shutil.which("git")
    if git is None or not paths:
        return set()
    files = [str(inside_root(root, p)) for p in paths if inside_root(root, p) is not None]
    try:
        proc = subprocess.run(
            [git, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--", *files],
            cwd=root, capture_output=True, text=True, timeout=30,
        )
        top = subprocess.run([git, "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if proc.returncode != 0 or top.returncode != 0:
        return set()  # not a git work tree
    toplevel = Path(top.stdout.strip()).resolve()
    changed = set()
    for entry in proc.stdout.split("\0"):
        if len(entry) > 3 and entry[:2].strip():
            changed.add((toplevel / entry[3:]).resolve())
    return {p for p in paths if inside_root(root, p) in changed}
