"""The directory the server was started in: every program, record and output path must resolve inside it."""

from __future__ import annotations

from pathlib import Path

from tdiag.errors import TdiagError


class Workspace:
    def __init__(self, root: Path):
        self.root = root.resolve()

    def inside(self, path: str, what: str) -> Path:
        """``path`` (relative to the root, or absolute) resolved, symbolic links followed; refused outside the root."""
        if not path or "\x00" in path:
            raise TdiagError(f"{what}: an empty or invalid path")
        resolved = (self.root / path).resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise TdiagError(f"{what} {path!r} is outside the server's working directory {self.root}: refused")
        return resolved

    def record(self, path: str) -> Path:
        """A record (run directory or events*.jsonl file) inside the root."""
        resolved = self.inside(path, "record")
        if not resolved.exists():
            raise TdiagError(f"no record at {path} (run_program writes one; list_records lists those under "
                             "tdiag-runs/)")
        if resolved.is_dir() and not any(resolved.glob("events*.jsonl")):
            raise TdiagError(f"{path} is a directory without events*.jsonl: not a tdiag record")
        return resolved

    def relative(self, path: Path) -> str:
        """How tool results name a path: relative to the root when inside it."""
        try:
            return str(path.resolve().relative_to(self.root))
        except ValueError:
            return str(path)

    def records(self) -> list[Path]:
        """Run directories under ./tdiag-runs, newest first."""
        runs = self.root / "tdiag-runs"
        found = [d for d in runs.iterdir() if d.is_dir() and any(d.glob("events*.jsonl"))] if runs.is_dir() else []
        return sorted(found, key=lambda d: d.stat().st_mtime, reverse=True)
