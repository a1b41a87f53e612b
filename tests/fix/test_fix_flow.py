"""The fix flow around the rounds: what loading a record imports, the verify table's words, and Ctrl-C.

Ctrl-C is a real SIGINT to the whole process group, as a terminal sends it, once through a pipe (where the progress
line must stay silent) and once in a real terminal (tmux), where the progress line must show and then give way to
one line. The program pauses in every re-run (``--env SLOW_SECONDS``), so the interrupt lands inside the
verification, never racing torch.compile.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tdiag.fixing.compare import Comparison, Metrics
from tdiag.fixing.plan import PlannedPatch
from tdiag.fixing.render import print_report
from tdiag.fixing.report import FixReport
from tdiag.fixing.round import Round, Verification

from ._project import PROGRAMS, make_project

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")


def test_loading_a_record_with_a_verification_imports_only_its_reader(recorded, tmp_path):
    """issue 43: reading one verification record imported 8 modules of the fix flow (and libcst, subprocess...)."""
    run_dir, _ = recorded("data_dependent_if.py")
    record = tmp_path / "record"
    shutil.copytree(run_dir, record)
    (record / "fix").mkdir(exist_ok=True)
    (record / "fix" / "verification.json").write_text(json.dumps({"patches": [], "verification": [], "rounds": 1}))
    code = (
        "import sys, json\n"
        "from tdiag.commands._analysis import load_analysis\n"
        f"analysis = load_analysis({str(record)!r})\n"
        "assert analysis.verification['rounds'] == 1, analysis.verification\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tdiag.fixing'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == ["tdiag.fixing", "tdiag.fixing.saved"]


def _metrics(graphs: int, *step_ms: float) -> Metrics:
    m = Metrics(graphs=graphs, graph_breaks=0, recompiles=0, eager_fallbacks=0, compile_time_s=1.0,
                step_time_s=sorted(step_ms)[len(step_ms) // 2] / 1e3, steps_measured=20, run_time_s=2.0, exit_code=0)
    m.step_times_s, m.runs = [t / 1e3 for t in step_ms], len(step_ms)
    return m


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _rendered(comparison: Comparison, monkeypatch) -> str:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich styles as on a terminal: the colours are part of what is tested
    monkeypatch.delenv("NO_COLOR", raising=False)
    patch = PlannedPatch("BRK001@p.py:3", "p.py", "", "Use torch.where", ["BRK001"])
    report = FixReport("RECORD", [patch], Verification([Round(1, [patch], [comparison], why="kept nothing: test")]))
    out = io.StringIO()
    print_report(report, out, show_diffs=False)
    return out.getvalue()


def test_verify_table_puts_the_verdict_first_and_never_colours_a_time_inside_the_spread(monkeypatch):
    # the case: 0.406 ms before, 1.460 ms after, ranges that overlap: no verdict on time, fewer graphs
    before, after = _metrics(3, 0.30, 0.512), _metrics(1, 0.26, 2.66)
    c = Comparison("all patches", [], before, after, True, [], [], [], [], improved=["fewer graphs: 3 -> 1"],
                   timing="within the spread: no verdict on time (...)")
    text = _rendered(c, monkeypatch)
    lines = _plain(text).splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("round 1: all patches: "))
    assert lines[verdict] == "round 1: all patches: better: fewer graphs: 3 -> 1"
    assert lines[verdict + 1].replace("┃", " ").split() == ["before", "after"]  # the verdict, then the table
    step_row = next(line for line in lines if line.lstrip().startswith("time per step"))
    assert "0.406 ± 0.11 ms" in step_row and "1.46 ± 1.2 ms" in step_row  # middle of each range ± half its width
    raw_row = next(line for line in text.splitlines() if "time per step" in line)
    assert not re.search(r"\x1b\[[0-9;]*3[12]m\s*1\.46", raw_row), repr(raw_row)  # no green, no red on the after cell
    graphs_row = next(line for line in text.splitlines() if _plain(line).lstrip().startswith("graphs"))
    assert re.search(r"\x1b\[[0-9;]*32m\s*1\b", graphs_row), repr(graphs_row)  # an exact count that dropped: green


def test_a_time_beyond_the_spread_is_coloured(monkeypatch):
    c = Comparison("all patches", [], _metrics(1, 2.0, 2.1), _metrics(1, 1.0, 1.1), True, [], [], [], [],
                   improved=["faster steps"], timing="faster beyond the spread (...)")
    raw_row = next(line for line in _rendered(c, monkeypatch).splitlines() if "time per step" in line)
    assert re.search(r"\x1b\[[0-9;]*32m\s*1\.05 ± 0\.050 ms", raw_row), repr(raw_row)


@pytest.fixture(scope="module")
def slow(tmp_path_factory, session_env):
    return make_project(tmp_path_factory.mktemp("slow"), PROGRAMS / "slow_rerun.py", session_env)


def _scratch_runs_started(tmp: Path) -> bool:
    return any(tmp.glob("tdiag-fix-*/before/*/project/slow_rerun.py")) or any(tmp.glob("tdiag-fix-*/before/record*"))


@needs_git
def test_ctrl_c_during_verify_prints_one_line_and_exits_130(slow, tmp_path):
    source = (slow.root / "slow_rerun.py").read_bytes()
    env = {**slow.env, "TMPDIR": str(tmp_path)}  # the scratch copies land here, to be seen and then seen gone
    proc = subprocess.Popen(
        [sys.executable, "-m", "tdiag", "fix", str(slow.record), "--verify", "--env", "SLOW_SECONDS=120"],
        cwd=slow.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not _scratch_runs_started(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        time.sleep(1.0)  # inside the re-run's `tdiag run` now (torch importing, or the pause)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == [stderr.strip()] and "Traceback" not in stderr, stderr
    assert stderr.startswith("tdiag fix: interrupted while the program unpatched, run 1 of 1: "), stderr
    assert "your source is untouched, the scratch copies were removed" in stderr
    assert stdout == ""
    assert (slow.root / "slow_rerun.py").read_bytes() == source
    assert not list(tmp_path.glob("tdiag-fix-*")), list(tmp_path.iterdir())
    assert not (slow.record / "fix" / "verification.json").exists()


def _screen(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def _wait_for(session: str, pattern: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _screen(session)
        if re.search(pattern, screen):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{pattern!r} never appeared; the screen shows:\n{screen}")


@needs_git
@pytest.mark.terminal
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_verify_progress_in_a_real_terminal_then_ctrl_c(slow, tmp_path):
    session = f"tdiag-fix-{os.getpid()}"
    script = tmp_path / "fix.sh"
    script.write_text(
        f"cd {slow.root}\n"
        f"TMPDIR={tmp_path} {sys.executable} -m tdiag fix {slow.record} --verify --env SLOW_SECONDS=120\n"
        "echo exit=$?\n"
        "sleep 60\n"
    )
    env = {**slow.env, "TERM": "xterm-256color"}
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "30", f"bash {script}"],
                   check=True, env=env)
    try:
        # the progress line: what runs, which run, the runs known to come (the unpatched program once, once eagerly,
        # and the one patch once: more only where an output differs or the step time must decide) and the time elapsed
        screen = _wait_for(session, r"the program unpatched, run 1 of 1 .* 3 runs left \d+:\d\d:\d\d", 120)
        time.sleep(1.0)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        screen = _wait_for(session, r"exit=\d+", 60)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    lines = [line for line in screen.splitlines() if line.strip()]
    assert lines[-1] == "exit=130", screen
    said = [line for line in lines if "tdiag fix: interrupted while the program unpatched, run 1 of 1: " in line]
    assert len(said) == 1 and lines[-2] == said[0], screen
    assert "Traceback" not in screen and "runs left" not in screen, screen  # the progress line is gone
