"""Helpers shared by test modules (conftest.py holds only fixtures: conftest modules are not importable by name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).parent
PROGRAMS = TESTS / "programs"
REPO = TESTS.parent


def require_installed(*modules: str, reason: str) -> None:
    """Skip the calling test module unless ``modules`` are installed, without importing them: importorskip would load
    transformers, diffusers and torch_geometric (seconds of CPU) into every xdist worker at collection, though the
    tests only run them in `tdiag run` subprocesses."""
    import importlib.util

    import pytest

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)}: {reason}", allow_module_level=True)


def plain_env(**extra: str) -> dict[str, str]:
    """This process's environment without torch's logging, tracing and Dynamo switches (a test's own run of a program
    must not inherit them), unbuffered, and the Hugging Face libraries offline; ``extra`` on top."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    return {**env, "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false", **extra}


def plain_run(script: Path, *args: str, timeout: int = 300, **env: str) -> subprocess.CompletedProcess:
    """``python script *args`` from the script's folder, without tdiag, in ``plain_env(**env)``: a test's own run of
    a program as written or as patched. Kept between test runs (tests/oracle_cache.py) under the key of everything it
    depends on, the script's text and every file beside it included: a patched program is a new key, run live."""
    from oracle import run_plain
    from oracle_cache import kept_run

    return kept_run(run_plain, script, plain_env(**env), None, args, timeout)


def tdiag_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "tdiag", *args]


def run_tdiag(args: list[str], env: dict[str, str], cwd: Path = PROGRAMS, timeout: int = 300) -> subprocess.CompletedProcess:
    """``python -m tdiag *args`` from ``cwd``; a `run -o DIR` or `fix RECORD` is kept between test runs where nothing
    it depends on changed (tests/kept_tdiag.py)."""
    from kept_tdiag import tdiag

    return tdiag(args, cwd, env, timeout)


def shared_dir(tmp_path_factory, name: str) -> Path:
    """A folder every xdist worker of this pytest session sees (the session's base temp, above the workers' own)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / name
    folder.mkdir(exist_ok=True)
    return folder


def once_per_session(folder: Path, key: str, make: Callable[[Path], dict]) -> dict:
    """``make(folder/key)`` once for the whole session, whichever worker asks first; the others wait for it and read
    its JSON result. What it made must not be changed by the tests that use it."""
    from filelock import FileLock

    done = folder / f"{key}.result.json"
    with FileLock(str(folder / f"{key}.lock")):
        if not done.exists():
            done.write_text(json.dumps(make(folder / key)))
    return json.loads(done.read_text())


class RecordedRuns:
    """Runs each fixture program under `tdiag run` once per test session (shared by the xdist workers) and keeps the
    run directory."""

    def __init__(self, base: Path, env: dict[str, str]):
        self.base, self.env, self.done = base, env, {}

    def __call__(self, program: str, *args: str) -> tuple[Path, subprocess.CompletedProcess]:
        key = (program, args)
        if key not in self.done:
            name = Path(program).stem + ("-" + "-".join(args) if args else "")

            def make(out: Path) -> dict:
                proc = run_tdiag(["run", "--no-tui", "-o", str(out), program, *args], self.env)
                return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

            result = once_per_session(self.base, name, make)
            proc = subprocess.CompletedProcess(program, result["returncode"], result["stdout"], result["stderr"])
            self.done[key] = (self.base / name, proc)
        return self.done[key]


HOT_LINE, ONCE_LINE = 22, 15  # the graph_break() lines of `hot` and `once` in hot_loop_break.py


def hot_finding(analysis):
    """The break in `hot` of tests/runtime/programs/hot_loop_break.py (the `hot_loop_record` fixture)."""
    return next(f for f in analysis.findings if f.family == "BRK" and f.function == "hot")


@dataclass
class DeviceEvent:
    """A stand-in for a Kineto device event on this GPU-less machine, joined the way torch's own join does
    (torch/autograd/profiler.py: a device event's ``linked_correlation_id()`` is the ``correlation_id()`` of the
    frontend CPU op that launched it). The CPU side of the tests using it is a real profile."""

    _name: str
    _duration_ns: int
    _linked: int
    _correlation: int = 0  # CUPTI's id: shared with the cudaLaunchKernel runtime event, not with the op

    def name(self) -> str:
        return self._name

    def duration_ns(self) -> int:
        return self._duration_ns

    def linked_correlation_id(self) -> int:
        return self._linked

    def correlation_id(self) -> int:
        return self._correlation

    def is_user_annotation(self) -> bool:
        return False
