"""Forks (DataLoader workers, a multiprocessing pool), threads and os._exit: the program behaves as under python and
leaves one consistent record, written by the parent alone."""

from __future__ import annotations

import shutil
import subprocess
import time

from hardening_util import RESULTS, complete_lines, loaded_events, plain, report, under_tdiag
from tdiag.analyzer import build

# Every retry is logged here (kept across runs on one machine, like the reliability figures); a second one fails.
RETRY_LOG = RESULTS.parent / "fork-hang-retries.log"


def run_fork_heavy_program(run_dir, env) -> subprocess.CompletedProcess:
    """The program forks DataLoader workers and a Pool that compile in the children. Once in about twenty CI runs
    on a loaded 2-core machine a run hung (cause not found; not reproduced in 18 direct runs): such a run is killed
    after two minutes and tried once more, never more, so a hang that repeats still fails the test. Each retry is
    counted in RETRY_LOG; when the retry has tripped twice the test fails, so a rare hang cannot hide for good."""
    try:
        return under_tdiag(run_dir, ["processes.py", "7"], env, timeout=120)
    except subprocess.TimeoutExpired:
        RETRY_LOG.parent.mkdir(parents=True, exist_ok=True)
        with open(RETRY_LOG, "a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} fork-heavy run hung for 120 s and was retried\n")
        trips = RETRY_LOG.read_text(encoding="utf-8").splitlines()
        assert len(trips) < 2, "the fork-test hang retry tripped twice: find the hang\n" + "\n".join(trips)
        shutil.rmtree(run_dir, ignore_errors=True)
        return under_tdiag(run_dir, ["processes.py", "7"], env, timeout=120)


def test_fork_thread_and_os_exit_leave_one_consistent_record(session_env, tmp_path):
    expected = plain(["processes.py", "7"], session_env)
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
