"""Ctrl-C in tdiag's own work ends in one line (what was interrupted, what was kept) and exit 130, no traceback.

Real SIGINTs: ``os.kill`` on a `tdiag` subprocess held at a known point (a pipe nobody reads, a FIFO nobody opens),
and Ctrl-C typed into a real terminal (tmux) for the UI. The records come from the session's shared runs.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tdiag_testing import PROGRAMS, tdiag_cmd


@pytest.fixture(scope="module")
def record(recorded) -> Path:
    run_dir, proc = recorded("data_dependent_if.py")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return run_dir


def _interrupt_when(proc: subprocess.Popen, ready, timeout: float = 120.0, stderr: bool = True) -> tuple[int, str]:
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, "tdiag ended before the interrupt"
        assert time.monotonic() < deadline, "never reached the point to interrupt"
        time.sleep(0.1)
    time.sleep(1.0)  # inside the blocking call
    proc.send_signal(signal.SIGINT)
    return proc.wait(timeout=60), proc.stderr.read() if stderr else ""


def _blocked_in(proc: subprocess.Popen, what: str) -> bool:
    """The process sleeps in the kernel on ``what`` (pipe_write, fifo_open...), read from /proc."""
    try:
        return what in Path(f"/proc/{proc.pid}/wchan").read_text()
    except OSError:
        return False


def test_report_interrupted_while_writing_is_one_line_and_130(record, session_env):
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # the JSON is larger: the writer blocks, nobody reads
    try:
        proc = subprocess.Popen(tdiag_cmd("report", str(record), "--format", "json"), stdout=write_end,
                                stderr=subprocess.PIPE, text=True, env=session_env)
        os.close(write_end)
        code, stderr = _interrupt_when(proc, lambda: _blocked_in(proc, "pipe"))
    finally:
        os.close(read_end)
    assert code == 130
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines() == [
        "tdiag report: interrupted while writing the JSON report; the record is unchanged"]


def test_run_interrupted_after_the_program_keeps_the_record(tmp_path, session_env):
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)  # opening it for writing blocks until a reader comes: none will
    out, log = tmp_path / "rec", tmp_path / "stderr.txt"
    with open(log, "w") as err:
        proc = subprocess.Popen(tdiag_cmd("run", "--no-profile", "-o", str(out), "--html", str(fifo),
                                          "data_dependent_if.py"),
                                cwd=PROGRAMS, stdout=subprocess.DEVNULL, stderr=err, text=True, env=session_env)
        # the summary's last line is out: what is left is the HTML report, which waits forever on the FIFO
        code, _ = _interrupt_when(proc, lambda: "open it:" in log.read_text(), timeout=240, stderr=False)
    stderr = log.read_text()
    assert code == 130
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        f"tdiag run: interrupted while writing the HTML report; the record is kept in {out}")
    from tdiag.analyzer import build

    assert build(out).findings  # the record stands, complete


def test_the_programs_own_ctrl_c_stays_pythons(tmp_path, session_env):
    program = tmp_path / "interrupts_itself.py"
    program.write_text("import os, signal\nprint('before', flush=True)\nos.kill(os.getpid(), signal.SIGINT)\n")
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=session_env, timeout=60)
    under = subprocess.run(tdiag_cmd("run", "-q", "-o", str(tmp_path / "rec"), str(program)), capture_output=True,
                           text=True, env=session_env, timeout=120)
    assert under.returncode == plain.returncode  # died of SIGINT, as python does
    assert under.stdout == plain.stdout
    assert "KeyboardInterrupt" in plain.stderr and "KeyboardInterrupt" in under.stderr
    assert "tdiag run: interrupted" not in under.stderr


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True).stdout


def _wait_for(session: str, text: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")


@pytest.mark.terminal
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_ctrl_c_in_the_tui_and_report_in_a_terminal(record, tmp_path):
    """Ctrl-C typed into the UI ends it with one line and 130; `tdiag report RECORD` in a terminal writes the page
    beside the record and says where."""
    copy = tmp_path / "rec"
    shutil.copytree(record, copy)
    session = f"tdiag-interrupt-{os.getpid()}"
    shell = f"cd {tmp_path} && {sys.executable} -m tdiag tui rec; echo rc=$?; {sys.executable} -m tdiag report rec; " \
            "echo rc=$?; sleep 60"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30", shell], check=True)
    try:
        _wait_for(session, "Top problems")
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        screen = _wait_for(session, "rc=130")
        assert "tdiag tui: interrupted while exploring the record; the record is unchanged" in screen
        assert "Traceback" not in screen
        screen = _wait_for(session, "rc=0")
        assert f"tdiag: HTML report written to {Path('rec') / 'report.html'}" in screen
        assert (copy / "report.html").read_text().lstrip().lower().startswith("<!doctype html")
        assert '"findings"' not in screen  # no JSON in the terminal
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


@pytest.mark.terminal
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_sigint_from_outside_ends_the_tui_the_same_way(record, tmp_path):
    """The UI puts the terminal in raw mode (Ctrl-C arrives as a key); a SIGINT sent to the process (kill -INT, a
    supervisor) must end it the same way, not as a silent exit 0."""
    pid_file = tmp_path / "pid"
    session = f"tdiag-sigint-{os.getpid()}"
    shell = f"sh -c 'echo $$ > {pid_file}; exec {sys.executable} -m tdiag tui {record}'; echo rc=$?; sleep 60"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30", shell], check=True)
    try:
        _wait_for(session, "Top problems")
        os.kill(int(pid_file.read_text()), signal.SIGINT)
        screen = " ".join(_wait_for(session, "rc=").split())
        assert "rc=130" in screen
        assert "tdiag tui: interrupted while exploring the record; the record is unchanged" in screen
        assert "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
