"""`tdiag run prog.py` in a real terminal (tmux), as the README's first command: the program's output and the summary
stay on the screen and the shell comes back (no full-screen UI over them); `--tui` opens the UI after the summary,
and Ctrl-C there ends `tdiag run` with one line and exit 130."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time

import pytest
from tdiag_testing import PROGRAMS

pytestmark = [pytest.mark.terminal,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


def _screen(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", session], capture_output=True,
                          text=True).stdout


def _wait_for(session: str, text: str, timeout: float = 180.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(session)
        if text in screen:
            return screen
        time.sleep(0.3)
    raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")


def test_the_summary_in_a_terminal_then_the_tui_on_request(tmp_path, session_env):
    session = f"tdiag-first-{os.getpid()}"
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in session_env.items()
                   if k in ("GIT_CEILING_DIRECTORIES", "TORCHINDUCTOR_CACHE_DIR", "PYTHONUNBUFFERED"))
    tdiag = f"env {env} {sys.executable} -m tdiag run --no-profile"
    shell = (f"cd {PROGRAMS} && {tdiag} -o {tmp_path / 'plain'} data_dependent_if.py; echo rc=$?; "
             f"{tdiag} --tui -o {tmp_path / 'tui'} data_dependent_if.py; echo rc=$?; sleep 120")
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "40", shell], check=True)
    try:
        screen = _wait_for(session, "rc=0")
        assert "torch.Size([4, 3])" in screen  # the program's output, on the screen after tdiag is done
        assert "tdiag: what torch.compile did" in screen and "data_dependent_if.py:7" in screen
        assert "open it: tdiag tui" in screen and str(tmp_path / "plain") in screen
        _wait_for(session, "Top problems")  # the second run opened the UI after its summary
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        screen = _wait_for(session, "rc=130")
        assert f"tdiag run: interrupted while exploring the record; the record is kept in {tmp_path / 'tui'}" in screen
        assert "Traceback" not in screen
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
