"""``run_program``: the client's program under ``tdiag run`` in a subprocess of the server's working directory.

A subprocess, never in-process: the server's stdout is the protocol, torch's state must not outlive a run, and a
program that crashes or hangs must not take the server with it. Its stdin is the null device, its output is kept
(the last part returned), and while it runs the record it writes is read for progress (compiles, graph breaks).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from tdiag.errors import TdiagError

MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
PROGRESS_EVERY_S = 2.0
TAIL_CHARS = 3000
COMPILE = re.compile(rb'"type": ?"compile_start"')
BREAK = re.compile(rb'"type": ?"break_site"')

Progress = Callable[[float, str], Awaitable[None]]


class Finished:
    def __init__(self, exit_code: int, stdout: str, stderr: str, wall_s: float):
        self.exit_code, self.stdout, self.stderr, self.wall_s = exit_code, stdout, stderr, wall_s


def command(program: str, args: list[str], module: bool, out: Path, profile: bool, vs_eager: bool) -> list[str]:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(out)]
    if not profile:
        cmd.append("--no-profile")
    if vs_eager:
        cmd.append("--vs-eager")
    return cmd + (["-m"] if module else []) + [program, *args]


def check_module(name: str) -> None:
    if not MODULE_NAME.fullmatch(name):
        raise TdiagError(f"module {name!r} is not a dotted Python module name")


async def run(cmd: list[str], cwd: Path, record_file: Path, timeout_s: float | None, progress: Progress) -> Finished:
    """Run ``cmd``; report progress every few seconds; kill its whole process group on timeout or cancellation."""
    import anyio

    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
        counted = _Counter(record_file)
        try:
            next_report = started
            while proc.poll() is None:
                now = time.monotonic()
                if timeout_s is not None and now - started > timeout_s:
                    raise TdiagError(f"the program did not finish within {timeout_s:g} s (timeout_s): stopped; "
                                     f"its record so far is at {record_file.parent}")
                if now >= next_report:
                    compiles, breaks = counted.update()
                    await progress(round(now - started, 1),
                                   f"running: {compiles} compile(s), {breaks} graph break(s) so far")
                    next_report = now + PROGRESS_EVERY_S
                await anyio.sleep(0.2)
        finally:
            if proc.poll() is None:  # cancelled or timed out: the program and its children go too
                _kill_group(proc)
        return Finished(proc.returncode, _tail(out), _tail(err), time.monotonic() - started)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.wait()


def _tail(stream) -> str:
    stream.seek(0, os.SEEK_END)
    size = stream.tell()
    stream.seek(max(0, size - TAIL_CHARS * 4))
    return stream.read().decode("utf-8", errors="replace")[-TAIL_CHARS:]


class _Counter:
    """Compiles and graph breaks so far, from the bytes the record gained since the last look."""

    def __init__(self, record_file: Path):
        self.file, self.offset, self.compiles, self.breaks, self.rest = record_file, 0, 0, 0, b""

    def update(self) -> tuple[int, int]:
        try:
            with open(self.file, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return self.compiles, self.breaks
        self.offset += len(chunk)
        data = self.rest + chunk
        cut = data.rfind(b"\n") + 1
        self.rest = data[cut:]
        self.compiles += len(COMPILE.findall(data[:cut]))
        self.breaks += len(BREAK.findall(data[:cut]))
        return self.compiles, self.breaks
