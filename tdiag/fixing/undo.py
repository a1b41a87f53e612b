"""Writing patched files with a way back: a byte-exact backup and a manifest that ``tdiag fix --undo`` reads.

The backup lives in the record's ``fix/`` folder (``backup-<stamp>/<path>``), never in the user's project. Undo
restores a file only while it still holds what tdiag wrote, so edits made after the fix are never thrown away
silently (``--force`` restores anyway).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from tdiag.errors import TdiagError
from tdiag.lean_dataclass import lean_dataclass

MANIFEST_PREFIX = "undo-"


@lean_dataclass
class Applied:
    manifest: Path
    backup: Path
    files: list[str]


def write_with_backup(record_dir: Path, root: Path, new_texts: dict[str, str], patch_ids: list[str]) -> Applied:
    """Back up each file, then write its new text (atomically, keeping its mode); the manifest comes last."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fix_dir = record_dir / "fix"
    backup = fix_dir / f"backup-{stamp}"
    n = 1
    while backup.exists():
        n += 1
        backup = fix_dir / f"backup-{stamp}-{n}"
    entries = []
    for path, text in new_texts.items():
        target = root / path
        original = target.read_bytes()
        saved = backup / path
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_bytes(original)
        written = text.encode("utf-8", errors="surrogateescape")
        entries.append({"path": path, "backup": str(saved.relative_to(fix_dir)), "written_sha": _sha(written)})
    for path, text in new_texts.items():
        _replace(root / path, text.encode("utf-8", errors="surrogateescape"))
    manifest = backup.with_name(MANIFEST_PREFIX + backup.name.removeprefix("backup-") + ".json")
    manifest.write_text(
        json.dumps({"root": str(root), "time": time.time(), "patches": patch_ids, "files": entries}, indent=2) + "\n"
    )
    return Applied(manifest, backup, list(new_texts))


def undo(record_dir: Path | None, force: bool) -> tuple[Path, list[str]]:
    """Restore the files of the newest manifest under ``record_dir`` (or the newest in ./tdiag-runs)."""
    manifest = latest_manifest(record_dir)
    if manifest is None:
        where = record_dir / "fix" if record_dir else Path("tdiag-runs")
        raise TdiagError(f"nothing to undo: no `tdiag fix --apply` manifest under {where}")
    data = json.loads(manifest.read_text())
    root = Path(data["root"])
    changed = []
    for entry in data["files"]:
        target = root / entry["path"]
        if target.exists() and _sha(target.read_bytes()) != entry["written_sha"]:
            changed.append(entry["path"])
    if changed and not force:
        raise TdiagError(
            f"not undone: {', '.join(changed)} changed after `tdiag fix --apply` wrote it; "
            f"the originals are in {manifest.parent / data['files'][0]['backup'].split('/')[0]} (or pass --force)"
        )
    restored = []
    for entry in data["files"]:
        _replace(root / entry["path"], (manifest.parent / entry["backup"]).read_bytes())
        restored.append(entry["path"])
    manifest.rename(manifest.with_suffix(".undone"))
    return manifest, restored


def latest_manifest(record_dir: Path | None) -> Path | None:
    dirs = [record_dir / "fix"] if record_dir else [d / "fix" for d in Path("tdiag-runs").glob("*") if d.is_dir()]
    found = [m for d in dirs if d.is_dir() for m in d.glob(MANIFEST_PREFIX + "*.json")]
    return max(found, key=lambda m: m.stat().st_mtime_ns) if found else None


def _replace(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.tdiag-fix.tmp")
    tmp.write_bytes(data)
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777)
    except OSError:
        pass
    os.replace(tmp, target)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
