"""tests/gloo_exit.py accepts torch's gloo exit abort only when the records and the abort's own output say it is
that."""

from __future__ import annotations

import subprocess

import gloo_exit
import pytest
from tdiag_testing import run_tdiag

ABORTED_IN_SHUTDOWN = """\
terminate called without an active exception
Fatal Python error: Aborted

Thread 0x00007f340fa55b80 (most recent call first):
  <no Python frame>

Extension modules: torch._C (total: 1)
E1201 failed (exitcode: -6) local_rank: 1 (pid: 29686) of binary: python
"""
ABORTED_IN_PYTHON = ABORTED_IN_SHUTDOWN.replace("  <no Python frame>", '  File "train.py", line 9 in <module>')


@pytest.fixture(scope="module")
def records(tmp_path_factory, session_env):
    """Two real records: a program that ended normally, and one that raised."""
    folder = tmp_path_factory.mktemp("gloo-exit")
    made = {}
    for name, body in (("finished", "print('done')\n"), ("raised", "raise RuntimeError('boom')\n")):
        (folder / f"{name}.py").write_text(body)
        cmd = ["run", "-q", "--no-tui", "--no-profile", "-o", str(folder / name), f"{name}.py"]
        run_tdiag(cmd, session_env, cwd=folder)
        made[name] = folder / name
    return made


def job(returncode: int, stderr: str) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(args=["torchrun"], returncode=returncode, stdout="", stderr=stderr)


def test_the_abort_after_every_rank_finished_is_torchs(records):
    with pytest.warns(gloo_exit.TorchGlooExitAbort):
        gloo_exit.assert_job_exited_cleanly(job(1, ABORTED_IN_SHUTDOWN), records["finished"])


@pytest.mark.parametrize(
    ("stderr", "record", "why"),
    [
        (ABORTED_IN_SHUTDOWN, "raised", "did not record the program's normal exit"),
        (ABORTED_IN_PYTHON, "finished", "running Python code"),
        (ABORTED_IN_SHUTDOWN.split("Fatal Python error")[0] + "exitcode: -6", "finished", "no faulthandler dump"),
        ("Traceback ...\nRuntimeError: boom\nexitcode: 1", "finished", "no rank died of SIGABRT"),
    ],
    ids=["rank-unfinished", "python-on-stack", "no-dump", "not-an-abort"],
)
def test_anything_else_still_fails(records, stderr, record, why):
    with pytest.raises(AssertionError, match=why):
        gloo_exit.assert_job_exited_cleanly(job(1, stderr), records[record])


def test_exit_0_with_the_abort_message_still_fails(records):
    with pytest.raises(AssertionError):
        gloo_exit.assert_job_exited_cleanly(job(0, ABORTED_IN_SHUTDOWN), records["finished"])
