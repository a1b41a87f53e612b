"""What a record says about the run it captured: the command, where it ran, the project root, the sources."""

from __future__ import annotations

from pathlib import Path

from tdiag.errors import TdiagError
from tdiag.lean_dataclass import lean_dataclass
from tdiag.record import find_record_files, open_record


@lean_dataclass
class RecordedRun:
    record_dir: Path  # the run directory (fix/ results and undo manifests go here)
    root: Path  # the project root: only files under it are snapshotted, patched or copied
    cwd: Path
    kind: str  # "script" or "module"
    argv: list[str]  # [script as given (or module), *args]
    sources: dict[str, str]  # display path (relative to root) -> recorded snapshot text

    def file(self, display_path: str) -> Path:
        return self.root / display_path


def recorded_run(record: str, sources: dict[str, str]) -> RecordedRun:
    """The recorded run of ``record``; TdiagError when the record cannot be re-run (imported traces, no header)."""
    files = find_record_files(record)
    record_dir = files[0].parent
    header = open_record(files[0])[0].header
    if header.get("source") == "tdiag import" or not header.get("argv"):
        raise TdiagError(f"{record} was imported from a trace: it holds no command to re-run or sources to patch")
    if not header.get("root") or not header.get("cwd"):
        raise TdiagError(f"{record} does not say where the program ran (no root/cwd in its header)")
    target = header.get("target") or {}
    return RecordedRun(
        record_dir=record_dir,
        root=Path(header["root"]),
        cwd=Path(header["cwd"]),
        kind=target.get("kind", "script"),
        argv=list(header["argv"]),
        sources=dict(sources),
    )
