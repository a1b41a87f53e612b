"""Nothing is lost: a run ended by a signal, an exception, sys.exit or os._exit, at several points including inside
a compile, leaves a record that loads and gives back every complete line written."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest
from hardening_util import PROGRAMS, complete_lines, loaded_events, plain, report, under_tdiag
from tdiag.analyzer import build


def check_record(run_dir) -> int:
    """The record loads, gives back every complete line, and the analysis builds; returns the events kept."""
    record = run_dir / "events.jsonl"
    lines = complete_lines(record)
    assert loaded_events(record) == lines - 1  # header excluded
    build(run_dir)
    return lines - 1


def start(run_dir, args, env) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), *args]
    return subprocess.Popen(cmd, cwd=PROGRAMS, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_signal_during_a_compile(session_env, tmp_path, sig):
    proc = start(tmp_path / "r", ["faulty.py", "during", "wait"], session_env)
    for line in proc.stdout:
        if line.startswith(b"READY"):
            break
    else:
        pytest.fail(proc.stderr.read().decode())
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode == -sig  # died of the signal, as the program would under python
    assert check_record(tmp_path / "r") > 0
    a = build(tmp_path / "r")
    assert a.summary.frames_compiled >= 2  # the compiles finished before the signal are all there
    if sig == signal.SIGTERM:
        assert a.run.exit_reason == "signal"
    report(f"faults-signal-during-compile-{sig.name}", "faults", f"{sig.name} while a compile is in progress", 1,
           f"died of {sig.name} as under python; record loads, every complete line given back")


def test_sigkill_at_random_moments(session_env, tmp_path):
    # Delays spread over start-up, the compiles and the sleep after them (seeded: the same moments every run).
    rng = random.Random(8)
    delays = sorted(rng.uniform(1.0, 12.0) for _ in range(3))
    for i, delay in enumerate(delays):
        run_dir = tmp_path / f"r{i}"
        proc = start(run_dir, ["faulty.py", "after", "wait"], session_env)
        time.sleep(delay)
        proc.kill()
        proc.wait(timeout=60)
        if (run_dir / "events.jsonl").exists():
            check_record(run_dir)
    report("faults-sigkill-random", "faults", "SIGKILL after a random delay (1-12 s: start-up, compiles, idle)",
           len(delays), "every record loads and gives back every complete line")


@pytest.mark.parametrize("point, action", [
    ("before", "exit"), ("during", "raise"), ("during", "os_exit"), ("after", "exit"),
])
def test_abnormal_ends(session_env, tmp_path, point, action):
    args = ["faulty.py", point, action]
    expected = plain(args, session_env)
    got = under_tdiag(tmp_path / "r", args, session_env)
    assert got.returncode == expected.returncode != 0
    assert got.stdout == expected.stdout
    assert got.stderr.splitlines()[-1:] == expected.stderr.splitlines()[-1:]  # the same final error line
    assert check_record(tmp_path / "r") > 0
    a = build(tmp_path / "r")
    if action == "os_exit":
        assert a.run.exit_reason == "unknown"
    else:
        assert a.run.exit_code == expected.returncode
    report(f"faults-{action}-{point}", "faults", f"{action.replace('_', '.')} {point} the compiles", 1,
           f"exit status {expected.returncode} and output as under python; record loads, every complete line given back")
