"""The program under `tdiag run` behaves as under `python`: argv, sys.path[0], __main__, output, exit status;
and tdiag fails cleanly, before running anything, on bad input."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
from tdiag.analyzer import build
from tdiag_testing import PROGRAMS, run_tdiag, tdiag_cmd

from tdiag.record import open_record


def plain(program: str, *args: str, env=None, cwd=PROGRAMS) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, program, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_script_sees_the_same_argv_path_and_main(session_env, tmp_path):
    expected = plain("probe_env.py", "--epochs", "1", "-x", env=session_env)
    got = run_tdiag(["run", "--no-tui", "-q", "-o", str(tmp_path / "r"), "probe_env.py", "--epochs", "1", "-x"], session_env)
    assert got.returncode == expected.returncode == 0
    assert json.loads(got.stdout) == json.loads(expected.stdout)
    assert got.stderr == expected.stderr == "to stderr\n"  # -q: tdiag adds nothing


def test_module_runs_like_python_dash_m(session_env, tmp_path):
    expected = subprocess.run([sys.executable, "-m", "probepkg.train", "--lr", "3e-4"], cwd=PROGRAMS, env=session_env,
                              capture_output=True, text=True)
    got = run_tdiag(["run", "--no-tui", "-q", "-o", str(tmp_path / "r"), "-m", "probepkg.train", "--lr", "3e-4"], session_env)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == json.loads(expected.stdout)


def test_exception_passes_through_and_record_is_complete(session_env, tmp_path):
    expected = plain("raises.py", env=session_env)
    got = run_tdiag(["run", "--no-tui", "-q", "-o", str(tmp_path / "r"), "raises.py"], session_env)
    assert got.returncode == expected.returncode == 1
    assert got.stderr.splitlines()[-4:] == expected.stderr.splitlines()[-4:]
    assert "tdiag" not in got.stderr and "runpy" not in got.stderr  # the traceback starts in the user's code
    a = build(tmp_path / "r")
    assert a.run.exit_code == 1 and a.run.exit_reason == "exception"
    assert a.summary.graph_breaks == 1


def test_sys_exit_code_passes_through(session_env, tmp_path):
    got = run_tdiag(["run", "--no-tui", "-o", str(tmp_path / "r"), "exits.py"], session_env)
    assert got.returncode == 3
    assert got.stdout == plain("exits.py", env=session_env).stdout
    a = build(tmp_path / "r")
    assert a.run.exit_code == 3 and a.summary.graph_breaks == 1
    assert "tdiag tui" in got.stderr  # the summary says how to open the record


def test_missing_script_exits_2_and_runs_nothing(session_env, tmp_path):
    got = run_tdiag(["run", "-o", str(tmp_path / "r"), "no_such_program.py"], session_env)
    assert got.returncode == 2
    assert "no such file: no_such_program.py" in got.stderr
    assert not (tmp_path / "r").exists()


def test_not_python_exits_2(session_env, tmp_path):
    bad = tmp_path / "notes.py"
    bad.write_text("this is not python (\n")
    got = run_tdiag(["run", "-o", str(tmp_path / "r"), str(bad)], session_env)
    assert got.returncode == 2 and "is not a Python program" in got.stderr


def test_missing_module_exits_2(session_env, tmp_path):
    got = run_tdiag(["run", "-o", str(tmp_path / "r"), "-m", "no_such_module_xyz"], session_env)
    assert got.returncode == 2 and "no module named 'no_such_module_xyz'" in got.stderr


def test_unwritable_output_is_refused_before_the_program_starts(session_env, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    got = run_tdiag(["run", "-o", str(blocker / "sub"), "probe_env.py"], session_env)
    assert got.returncode == 2
    assert "cannot create the record directory" in got.stderr
    assert "argv" not in got.stdout  # the program never ran


def _start_and_wait_for(program: str, out, env, marker: str) -> subprocess.Popen:
    proc = subprocess.Popen(tdiag_cmd("run", "--no-tui", "-q", "-o", str(out), program), cwd=PROGRAMS, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert marker in line, proc.stderr.read() if proc.poll() is not None else line
    return proc


def test_sigkill_keeps_every_event_written(session_env, tmp_path):
    proc = _start_and_wait_for("slow_compile.py", tmp_path / "r", session_env, "compiled")
    proc.kill()
    proc.wait(timeout=30)
    a = build(tmp_path / "r")
    assert a.summary.graph_breaks >= 1 and a.summary.recompiles >= 1
    assert a.run.exit_reason == "unknown"
    assert any("no exit event" in p for p in a.run.record_problems)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl_c"])
def test_sigterm_and_ctrl_c_keep_the_record(session_env, tmp_path, sig):
    # one run per signal, a test each, so the two workers can take one each
    proc = _start_and_wait_for("slow_compile.py", tmp_path / "r", session_env, "compiled")
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode == -sig  # died of the signal, as under python
    a = build(tmp_path / "r")
    assert a.summary.graph_breaks >= 1


def test_truncated_last_line_is_tolerated(tmp_path, recorded):
    run_dir, _ = recorded("data_dependent_if.py")
    data = (run_dir / "events.jsonl").read_bytes()
    cut = tmp_path / "events.jsonl"
    cut.write_bytes(data[: len(data) - 25])
    (rf,) = open_record(cut)
    events = list(rf.events())
    assert rf.truncated and events
    assert build(cut).summary.graph_breaks == 1
