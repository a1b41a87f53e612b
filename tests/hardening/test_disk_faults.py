"""The disk fills up, or the record directory is removed, while the program runs: the program goes on exactly as
under python, and tdiag says once on stderr what it could not write."""

from __future__ import annotations

import resource
import shutil
import signal
import subprocess
import sys

from hardening_util import PROGRAMS, plain, report, under_tdiag


def _tiny_tmpfs(path) -> bool:
    path.mkdir()
    try:
        return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _limit_file_size():
    # Fallback where no tmpfs can be mounted: writes past 64 KiB fail with EFBIG, as on a full disk.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_disk_full(session_env, tmp_path):
    args = ["many_compiles.py", "12"]
    expected = plain(args, session_env)
    disk = tmp_path / "disk"
    mounted = _tiny_tmpfs(disk)
    try:
        got = under_tdiag(disk / "r", args, session_env, preexec_fn=None if mounted else _limit_file_size)
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=False)
    assert got.returncode == expected.returncode == 0
    assert got.stdout == expected.stdout
    lines = got.stderr.decode().splitlines()
    assert [ln for ln in lines if "tdiag" in ln][:1] and sum("cannot write the record" in ln for ln in lines) == 1
    assert [ln for ln in lines if "tdiag" not in ln] == expected.stderr.decode().splitlines()
    how = "a 64 KiB tmpfs" if mounted else "RLIMIT_FSIZE 64 KiB (no tmpfs mount allowed)"
    report("faults-disk-full", "faults", f"disk full mid-run ({how})", 1,
           "program output and exit status unchanged; one line on stderr saying recording stopped")


def test_record_directory_removed_mid_run(session_env, tmp_path):
    gate = tmp_path / "gate"
    args = ["many_compiles.py", "6", str(gate)]
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(tmp_path / "r"), *args]
    proc = subprocess.Popen(cmd, cwd=PROGRAMS, env=session_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"gate\n"
    shutil.rmtree(tmp_path / "r")
    gate.touch()
    out, err = proc.communicate(timeout=300)
    expected = plain(args, session_env)  # the gate file exists now: the plain run passes straight through
    assert proc.returncode == expected.returncode == 0
    assert b"gate\n" + out == expected.stdout
    tdiag_lines = [ln for ln in err.decode().splitlines() if "tdiag" in ln]
    assert len(tdiag_lines) == 1, err.decode()
    report("faults-record-dir-removed", "faults", "the record directory removed while the program runs", 1,
           "program output and exit status unchanged; one line on stderr: " + tdiag_lines[0].split(":", 1)[0] + ": ...")
