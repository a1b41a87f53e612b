"""A `tdiag run` or `tdiag fix` made by a test, kept between test runs when nothing it depends on changed (issue 65).

A command of tdiag's is a function of what it runs: tdiag's own sources, the interpreter and every installed
distribution, its arguments and environment, the files of the folder it runs from and of every folder or file its
arguments name (the program beside its files, the record `tdiag fix` reads). Under that key
(TDIAG_TEST_ORACLE_CACHE, the folder tests/oracle_cache.py keeps torch's plain runs in) this keeps what the command
left: its exit code, stdout and stderr, and every file it wrote or changed under its output folder (`run -o DIR`) or
the record it read (`fix RECORD` writes RECORD/fix/), with the folders' paths written as placeholders, so an entry made
in one temporary folder reads as made in another. A test reads a kept command exactly as it would a live one; what the
assertions judge was made by the same code on the same inputs.

Kept only where nothing else can tell: a command that names no folder of its own output is made live, as is one whose
Inductor cache is not the suite's kept one (a test that compiles into a cache of its own judges that cache's state,
which the key does not hold), one that writes outside the project (`fix --apply`, `--undo`), or one that timed out.
Without TDIAG_TEST_ORACLE_CACHE every command is live (a cold run).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

from oracle_cache import PROJECT, REPO, TEMP, _environment, _inputs, _interpreter

SALT = "kept-tdiag-2"  # bump when what an entry holds changes
KEPT_COMMANDS = {"run", "fix"}
LIVE_OPTIONS = {"--undo", "--keep-scratch", "-h", "--help"}  # they write where the entry keeps nothing
SKIPPED_PARTS = {".git", "__pycache__", ".pytest_cache", "tdiag-runs"}
LARGEST_FILE = 5 * 2**20


def tdiag(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> subprocess.CompletedProcess:
    """``python -m tdiag *args`` from ``cwd``, or the kept result of the same command on the same inputs."""
    cwd = Path(cwd).resolve()
    root = os.environ.get("TDIAG_TEST_ORACLE_CACHE")
    outputs = _output_folders(args, cwd)
    if not root or outputs is None or not _kept_compile_cache(env):
        return _live(args, cwd, env, timeout)
    places = _places(cwd, outputs)
    entry = Path(root) / _key(args, cwd, env, outputs, places)
    if (entry / "result.json").exists():
        os.utime(entry)  # in use: scripts/test prunes entries no run has read for two weeks
        return _replay(entry, args, outputs, places)
    before = {folder: _snapshot(folder, outputs) for folder in outputs}
    proc = _live(args, cwd, env, timeout)
    _keep(entry, proc, outputs, before, places)
    return proc


def _live(args, cwd: Path, env, timeout) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _output_folders(args: list[str], cwd: Path) -> list[Path] | None:
    """The folders the command writes into: `run -o DIR`'s DIR, `fix RECORD`'s RECORD, and a temporary project it
    runs from (what the program writes there, what --apply patches); None where it writes elsewhere too or where they
    cannot be told from the arguments."""
    if not args or args[0] not in KEPT_COMMANDS or LIVE_OPTIONS.intersection(args):
        return None
    in_repository = cwd.is_relative_to(REPO)
    if args[0] == "run":
        written = None
        for i, arg in enumerate(args[1:-1], start=1):
            if arg in ("-o", "--output"):
                written = (cwd / args[i + 1]).resolve()
                break
            if not arg.startswith("-"):
                break  # the program's own arguments begin: tdiag's -o would have come before
    else:
        record = next((a for a in args[1:] if not a.startswith("-") and (cwd / a).exists()), None)
        written = (cwd / record).resolve() if record else None
        if written is not None and not written.is_dir():
            written = written.parent
        if "--apply" in args and in_repository:
            return None  # it would patch this repository's own files
    if written is None:
        return None
    return [written] if in_repository or written == cwd else [written, cwd]


def _kept_compile_cache(env: dict[str, str]) -> bool:
    """The command compiles into the suite's kept Inductor cache, whose state no test may assume, or names none."""
    cache = env.get("TORCHINDUCTOR_CACHE_DIR")
    kept = os.environ.get("TDIAG_TEST_COMPILE_CACHE")
    return cache is None or (bool(kept) and Path(cache).resolve() == Path(kept).resolve())


@functools.cache
def _compile_cache_generation() -> str:
    """An id the kept Inductor cache holds from its making: a record names kernel files in it, so a cache emptied
    or made anew makes every command run again."""
    kept = os.environ.get("TDIAG_TEST_COMPILE_CACHE")
    if not kept:
        return ""
    marker = Path(kept) / ".kept-tdiag-generation"
    marker.parent.mkdir(parents=True, exist_ok=True)
    if not marker.exists():
        made = marker.with_name(f"{marker.name}.{os.getpid()}")
        made.write_text(uuid.uuid4().hex)
        try:
            os.link(made, marker)  # whole or not at all: another worker's id wins
        except FileExistsError:
            pass
        made.unlink()
    return marker.read_text()


def _places(cwd: Path, outputs: list[Path]) -> list[tuple[str, str]]:
    """(path, placeholder) pairs, the longest path first, so a folder inside another is written as its own."""
    named = [(str(folder), f"\x00OUTPUT{i}\x00") for i, folder in enumerate(outputs)]
    named += [(str(cwd), "\x00CWD\x00"), (str(REPO), "\x00REPO\x00")]
    return sorted(named, key=lambda pair: -len(pair[0]))


def _written(text: str, places) -> str:
    for path, placeholder in places:
        text = text.replace(path, placeholder)
    return text


def _read(text: str, places) -> str:
    for path, placeholder in places:
        text = text.replace(placeholder, path)
    return text


@functools.cache
def _sources() -> str:
    """tdiag's own code and data: a changed line anywhere in it makes every command run again."""
    digest = hashlib.sha256()
    for part in PROJECT:
        for path in sorted((REPO / part).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO)).encode() + b"\x00" + path.read_bytes() + b"\x00")
    digest.update((REPO / "pyproject.toml").read_bytes())
    return digest.hexdigest()


def _key(args, cwd: Path, env, outputs: list[Path], places) -> str:
    digest = hashlib.sha256()
    argv = [_written(str(a), places) for a in args]
    for part in (SALT, _interpreter(), _sources(), _compile_cache_generation(), json.dumps(argv),
                 json.dumps(_environment(env))):
        digest.update(part.encode() + b"\x00")
    named = {cwd, *((cwd / a).resolve() for a in args if not a.startswith("-") and (cwd / a).exists())}
    for folder in sorted({place if place.is_dir() else place.parent for place in named}):
        digest.update(_written(str(folder), places).encode() + b"\x00" + _git_state(folder) + b"\x00")
        for name, data in _folder_inputs(folder, env, outputs, places):
            digest.update(name.encode() + b"\x00" + data + b"\x00")
    return "tdiag-" + digest.hexdigest()[:32]


def _folder_inputs(folder: Path, env, outputs: list[Path], places):
    """A folder of this repository: the files beside the program and the packages beside it (oracle_cache._inputs).
    A temporary project or record: every file under it but another output's, text with its folders' paths written
    as placeholders (a record replayed into another folder keys alike)."""
    if folder.is_relative_to(REPO):
        return _inputs(folder, env)
    files = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or SKIPPED_PARTS.intersection(path.relative_to(folder).parts):
            continue
        if any(out != folder and out.is_relative_to(folder) and path.is_relative_to(out) for out in outputs):
            continue  # the command's output inside the project: an output, and keyed as the record where it is read
        data = path.read_bytes() if path.stat().st_size <= LARGEST_FILE else str(path.stat().st_size).encode()
        try:
            data = TEMP.sub("<tmp>", _written(data.decode(), places)).encode()
        except UnicodeDecodeError:
            pass
        files.append((str(path.relative_to(folder)), data))
    return files


def _git_state(folder: Path) -> bytes:
    """What `fix` reads of a project's git (which files are committed and which changed since): blob ids and the
    status, not the commit's id, which holds the time it was made."""
    if not (folder / ".git").exists():
        return b""
    state = [subprocess.run(["git", *cmd], cwd=folder, capture_output=True).stdout
             for cmd in (["ls-tree", "-r", "HEAD"], ["status", "--porcelain=v1", "--untracked-files=all"])]
    return b"\x00".join(state)


def _snapshot(folder: Path, outputs: list[Path]) -> dict[str, bytes]:
    """The files under ``folder`` (another output folder inside it is its own), by content."""
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).digest() for p in folder.rglob("*")
            if p.is_file() and not SKIPPED_PARTS.intersection(p.relative_to(folder).parts)
            and not any(out != folder and out.is_relative_to(folder) and p.is_relative_to(out) for out in outputs)}


def _keep(entry: Path, proc, outputs: list[Path], before, places) -> None:
    partial = entry.parent / f".{entry.name}.{os.getpid()}"
    try:
        for i, folder in enumerate(outputs):
            after = _snapshot(folder, outputs)
            if set(before[folder]) - set(after):
                return  # the command removed a file: a replay could not
            for name, digest in after.items():
                if before[folder].get(name) != digest:
                    target = partial / f"output{i}" / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = (folder / name).read_bytes()
                    try:
                        target.write_text(_written(data.decode(), places))
                    except UnicodeDecodeError:
                        target.write_bytes(data)
        partial.mkdir(parents=True, exist_ok=True)
        (partial / "result.json").write_text(json.dumps({
            "returncode": proc.returncode, "stdout": _written(proc.stdout, places),
            "stderr": _written(proc.stderr, places), "outputs": len(outputs)}))
        os.rename(partial, entry)  # whole or not at all; another worker's entry of the same key wins
    except OSError:
        pass
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _replay(entry: Path, args, outputs: list[Path], places) -> subprocess.CompletedProcess:
    result = json.loads((entry / "result.json").read_text())
    for i, folder in enumerate(outputs):
        kept = entry / f"output{i}"
        for path in sorted(kept.rglob("*")) if kept.is_dir() else ():
            if path.is_file():
                target = folder / path.relative_to(kept)
                target.parent.mkdir(parents=True, exist_ok=True)
                data = path.read_bytes()
                try:
                    target.write_text(_read(data.decode(), places))
                except UnicodeDecodeError:
                    target.write_bytes(data)
    return subprocess.CompletedProcess([sys.executable, "-m", "tdiag", *args], result["returncode"],
                                       _read(result["stdout"], places), _read(result["stderr"], places))
