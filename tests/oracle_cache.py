"""torch's own account of a plain run, kept between test runs when nothing it depends on changed (issue 45).

A plain run of a program under TORCH_TRACE (tests/oracle.py) is a function of what it runs: the program's folder,
the interpreter and every installed distribution (torch, transformers, ... and their versions), its arguments and
its environment. scripts/test names a folder for them (TDIAG_TEST_ORACLE_CACHE, under ~/.cache/tdiag, like the
compile cache); an entry is found again only under the same key, so a changed program, a new torch, another
library version or another environment variable runs it again. tdiag's own code is not in the key, because the
plain run does not execute it, unless the program's folder mentions tdiag. Without the variable every plain run is
made live (a cold run: ``TDIAG_TEST_ORACLE_CACHE= bash scripts/test``).

What is kept: the trace files, the exit code, stdout and stderr, with the program's folder written as a
placeholder, so an entry made for a copy of a program in another temporary folder reads as if made for this one.
A run that timed out raises and is never kept. Runs that judge compile caches (tests/compile_cache) call
oracle.run_traced directly: their trace is about the cache's state, which the key does not hold.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

SALT = "oracle-cache-1"  # bump when what an entry holds changes
REPO = Path(__file__).resolve().parent.parent
PLACEHOLDER = "\x00PROGRAM_DIR\x00"
REPOSITORY = "\x00REPOSITORY\x00"  # this checkout: a warning names torch's file in <checkout>/.venv/...
VENV_PATH = re.compile(r"/\.venv/lib/python")
# variables that differ between identical runs (the test runner's own, the shell's) and do not reach torch
VOLATILE = re.compile(r"^(PYTEST_.*|PWD|OLDPWD|SHLVL|_|TERM|COLUMNS|LINES|TMUX.*|SSH_.*|XDG_SESSION_.*|TORCH_TRACE)$")
TEMP = re.compile(r"/tmp/(pytest-of-[^/]+/pytest-\d+(/popen-gw\d+)?|tmp\w{8})")  # pytest's and tempfile's folders
# a program that imports tdiag, or pytest (which loads tdiag's plugin), runs tdiag's code: then its sources count
RUNS_TDIAG = re.compile(rb"^\s*(import|from)\s+(tdiag|pytest)\b", re.M)
LARGEST_INPUT = 5 * 2**20
PROJECT = ("tdiag", "tracer", "compiler", "analyzer", "tui", "reports")  # tdiag's sources (pyproject.toml's packages)


def kept_run(run, program: Path, env: dict[str, str], trace_dir: Path | None, args=(), timeout: int = 300):
    """``run(program, env, trace_dir, args, timeout)`` (oracle.run_traced, or another plain run of the program from
    its folder), or the kept result of the same run by the same function. ``trace_dir`` None: a run that leaves no
    trace (its stdout, stderr and exit code are the whole result)."""
    root = os.environ.get("TDIAG_TEST_ORACLE_CACHE")
    if not root:
        return run(program, env, trace_dir, args, timeout)
    entry = Path(root) / key(program, env, args, kind=f"{run.__module__}.{run.__qualname__}")
    where = str(program.parent.resolve())
    if (entry / "result.json").exists():
        result = json.loads((entry / "result.json").read_text())
        if result.get("repository") or not VENV_PATH.search(result["stdout"] + result["stderr"]):
            if trace_dir is not None:
                shutil.copytree(entry / "trace", trace_dir, dirs_exist_ok=True)
            os.utime(entry)  # in use: scripts/test prunes entries no run has read for two weeks
            return subprocess.CompletedProcess([sys.executable, program.name, *args], result["returncode"],
                                               _read(result["stdout"], where), _read(result["stderr"], where))
        # an entry made before the checkout was written as a placeholder names the venv of the checkout that made
        # it (a warning's torch path, <another clone>/.venv/...): made again
    proc = run(program, env, trace_dir, args, timeout)
    partial = Path(root) / f".{entry.name}.{os.getpid()}"
    try:
        if trace_dir is not None and trace_dir.exists():
            shutil.copytree(trace_dir, partial / "trace")
        else:
            (partial / "trace").mkdir(parents=True)
        (partial / "result.json").write_text(json.dumps({
            "returncode": proc.returncode, "stdout": _written(proc.stdout, where),
            "stderr": _written(proc.stderr, where), "program": program.name, "args": list(args),
            "repository": True}))
        if entry.exists():
            shutil.rmtree(entry, ignore_errors=True)  # the entry made before paths were placeholders
        os.rename(partial, entry)  # whole or not at all; another worker's entry of the same key wins
    except OSError:
        pass
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return proc


def _written(text: str, where: str) -> str:
    """The program's folder, then this checkout, as placeholders (the folder may lie inside the checkout)."""
    return text.replace(where, PLACEHOLDER).replace(str(REPO), REPOSITORY)


def _read(text: str, where: str) -> str:
    return text.replace(REPOSITORY, str(REPO)).replace(PLACEHOLDER, where)


def key(program: Path, env: dict[str, str], args=(), kind: str = "oracle.run_traced") -> str:
    """``kind``: the function that makes the run (a traced run and an untraced one of a program are not the same);
    the traced run, the default, adds nothing to the key."""
    digest = hashlib.sha256()
    parts = (SALT, _interpreter(), program.name, json.dumps(list(args)), json.dumps(_environment(env)))
    for part in parts if kind == "oracle.run_traced" else (*parts, kind):
        digest.update(part.encode() + b"\x00")
    for path, data in _inputs(program.parent, env):
        digest.update(path.encode() + b"\x00" + data + b"\x00")
    return digest.hexdigest()[:32]


@functools.cache
def _interpreter() -> str:
    """The Python and every distribution installed beside it (the child runs this interpreter)."""
    dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"]})
    return f"{sys.version}|{sys.platform}|" + ",".join(dists)


def _environment(env: dict[str, str]) -> list[tuple[str, str]]:
    def normal(value: str) -> str:
        return TEMP.sub("<tmp>", value.replace(str(REPO), "<repo>"))

    return sorted((k, normal(v)) for k, v in env.items() if not VOLATILE.match(k))


def _inputs(folder: Path, env: dict[str, str]):
    """What the program can import or read besides installed packages: the files beside it, the Python files of
    packages beside it and of this repository's folders on PYTHONPATH; tdiag's sources where the folder names it."""
    folder = folder.resolve()
    files = [p for p in folder.iterdir() if p.is_file()]
    files += [p for init in folder.glob("*/**/__init__.py") for p in init.parent.glob("*.py")]
    for entry in env.get("PYTHONPATH", "").split(os.pathsep):
        if entry and Path(entry).resolve().is_relative_to(REPO):
            files += Path(entry).resolve().glob("*.py")
    texts = []
    for path in sorted(set(files)):
        if path.stat().st_size <= LARGEST_INPUT:
            data = path.read_bytes()
            texts.append((str(path.relative_to(folder)) if path.is_relative_to(folder) else
                          str(path.relative_to(REPO)), data))
    if any(RUNS_TDIAG.search(data) for name, data in texts if name.endswith(".py")):
        texts += [(str(p.relative_to(REPO)), p.read_bytes()) for part in PROJECT for p in sorted((REPO / part).rglob("*.py"))]
    return texts
