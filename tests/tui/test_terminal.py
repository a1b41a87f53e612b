"""`tdiag tui RECORD` in a real terminal (tmux): a real capture, the real CLI, keys typed, the screen read back."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.terminal


@pytest.fixture(scope="module")
def record(recorded) -> Path:
    """The session's shared capture of a data-dependent branch, so this test adds no torch run of its own."""
    run_dir, proc = recorded("data_dependent_if.py")
    if proc.returncode != 0 or not run_dir.exists():
        pytest.fail(f"tdiag run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return run_dir


def _capture(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def _wait_for(session: str, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _capture(session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tui_command_in_a_real_terminal(record: Path):
    from tdiag.analyzer import build

    analysis = build(record)
    top = analysis.findings[0]
    session = f"tdiag-tui-{id(record)}"
    command = f"{sys.executable} -m tdiag tui {record}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command], check=True)
    try:
        _wait_for(session, "Top problems")
        # the rows are set on mount and may be painted a frame after the title (seen under a loaded machine)
        _wait_for(session, top.code)
        subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)
        screen = _wait_for(session, f"{len(analysis.findings)} of {len(analysis.findings)} findings")
        assert top.name in screen
        source_line = analysis.sources[top.path].splitlines()[top.line - 1].strip()
        assert source_line in screen
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], check=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and session in subprocess.run(
                ["tmux", "list-sessions"], capture_output=True, text=True).stdout:
            time.sleep(0.2)
        assert session not in subprocess.run(["tmux", "list-sessions"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_missing_record_is_a_one_line_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "tdiag", "tui", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "tdiag tui: error:" in done.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_fix_line_is_in_view_in_an_80x24_terminal(record: Path):
    """The detail pane of an 80x24 terminal shows ~8 lines: the Fix sits right under the site, above the cost, its
    folded caveat and the source snippet."""
    from tdiag.analyzer import build

    top = build(record).findings[0]
    session = f"tdiag-tui-80x24-{id(record)}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24",
                    f"{sys.executable} -m tdiag tui {record}"], check=True)
    try:
        _wait_for(session, "Top problems")
        subprocess.run(["tmux", "send-keys", "-t", session, "2"], check=True)
        screen = _wait_for(session, "Fix (unverified): ")  # no fix --verify ran on this record
        assert top.fix.split()[0] in screen.split("Fix (unverified): ", 1)[1]
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
