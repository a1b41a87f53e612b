"""Forks (DataLoader workers, a multiprocessing pool), threads and os._exit: the program behaves as under python and
leaves one consistent record, written by the parent alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from hardening_util import PROGRAMS, complete_lines, loaded_events, plain, report
from tdiag.analyzer import build

DEADLINE_S = 120  # the program takes a few seconds; a run past this is a hang, reported with every thread's stack


def run_fork_heavy_program(run_dir, env) -> subprocess.CompletedProcess:
    """The program forks DataLoader workers and a Pool that compile in the children, then terminates the Pool.

    It once hung about one CI run in twenty: the Pool's workers inherited tdiag's SIGTERM handler, a Python handler
    that cannot run while a worker waits in C code, so ``Pool.terminate()`` could wait for ever on a worker that
    ignored its SIGTERM. Children now get the program's own disposition back at fork. No retry: a run past the
    deadline gets SIGABRT, faulthandler prints where every thread of it was, and the test fails with that."""
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), "processes.py", "7"]
    proc = subprocess.Popen(cmd, cwd=PROGRAMS, env={**env, "PYTHONFAULTHANDLER": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGABRT)  # the whole session: the parent and any worker stuck with it
        out, err = proc.communicate()
        pytest.fail(f"tdiag run of processes.py hung for {DEADLINE_S} s; its threads:\n{err.decode(errors='replace')}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def test_fork_thread_and_os_exit_leave_one_consistent_record(session_env, tmp_path):
    expected = plain(["processes.py", "7"], {**session_env, "PYTHONFAULTHANDLER": "1"})
    got = run_fork_heavy_program(tmp_path / "r", session_env)
    assert got.returncode == expected.returncode == 7, got.stderr.decode()
    assert got.stdout == expected.stdout
    assert got.stderr == expected.stderr
    record = tmp_path / "r" / "events.jsonl"
    data = record.read_bytes()
    assert data.count(b'"type":"header"') == 1
    # Every child compiled child_only_fn with a graph break; none of it may reach the parent's record.
    assert not [ln for ln in data.splitlines() if b"child_only_fn" in ln and b'"type":"source"' not in ln]
    assert complete_lines(record) == len(data.splitlines()) == loaded_events(record) + 1  # no torn or interleaved line
    a = build(tmp_path / "r")
    assert a.run.exit_reason == "unknown"  # os._exit: no exit event, said so
    assert any("os._exit" in p for p in a.run.record_problems)
    assert {b.site.function for b in a.breaks} == {"parent_fn", "thread_fn"}  # the thread's compile is recorded
    report("behaviour-fork-thread-os-exit", "behaviour",
           "DataLoader(num_workers=2, fork), fork Pool(2) compiling in children, compile in a thread, os._exit(7)", 1,
           "output and exit status as under python; one header, no line from a child, the thread's break recorded")
