"""Two gloo ranks on the CPU under `tdiag run --nproc-per-node 2` and under torchrun itself; divergence across ranks.

Each torchrun start costs several seconds, so there are three runs in all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gloo_exit
import pytest
from tdiag.analyzer import build
from tdiag.analyzer.rules.div001_rank_divergence import divergent_ranks

from tdiag.commands._torchrun import FAILED_AFTER_FINISH
from tdiag.record import open_record

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

PROGRAMS = Path(__file__).parent / "programs"
LAUNCHERS = {
    # no -q here: the launcher's one merged summary is part of what is checked
    "tdiag": lambda out, prog: [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-o", out, prog],
    "torchrun": lambda out, prog: [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
        "-m", "tdiag", "run", "--no-tui", "-q", "-o", out, prog,
    ],
}


def run_ranks(launcher: str, program: str, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    cmd = LAUNCHERS[launcher](str(out), str(PROGRAMS / program))
    done = subprocess.run(cmd, cwd=PROGRAMS, env={**env, **gloo_exit.ENV}, capture_output=True, text=True, timeout=400)
    gloo_exit.assert_job_exited_cleanly(done, out)
    return done


def check_both_ranks_recorded(out: Path):
    files = open_record(out)
    assert [f.path.name for f in files] == ["events.rank0.jsonl", "events.rank1.jsonl"]
    assert [f.header["rank"] for f in files] == [0, 1]
    analysis = build(out)
    assert analysis.run.ranks == [0, 1] and analysis.run.incomplete_ranks == [] and analysis.run.complete
    return analysis


@pytest.mark.parametrize("launcher", ["tdiag", "torchrun"])
def test_divergent_rank_is_named(launcher, tmp_path, session_env):
    done = run_ranks(launcher, "ddp_divergent.py", tmp_path / "run", session_env)
    a = check_both_ranks_recorded(tmp_path / "run")
    div = [f for f in a.findings if f.code == "DIV001"]
    assert {f.severity for f in div} == {"error"}  # DIV001's declared severity, whatever diverged
    count = next(f for f in div if "compiled different numbers of graphs" in f.message)
    assert "rank 1 diverged" in count.message and count.evidence.divergent_ranks == [1]
    item_break = next(f for f in div if f.line == 17 and "graph break" in f.message)
    assert "on rank 1 only" in item_break.message and item_break.ranks == {0: 0, 1: 1}
    # the rank-only break is also an ordinary finding, counted on rank 1 alone
    brk = next(f for f in a.findings if f.code == "BRK002")
    assert brk.ranks == {1: 1}
    shared = next(f for f in a.findings if f.family == "BRK" and f.line == 15)
    assert set(shared.ranks) == {0, 1}
    if launcher == "tdiag":  # the launcher alone prints, once, the summary of the merged analysis
        assert done.stderr.count("what torch.compile did") == 1 and "DIV001" in done.stderr


def test_clean_job_has_no_divergence(tmp_path, session_env):
    run_ranks("torchrun", "ddp_clean.py", tmp_path / "run", session_env)
    a = check_both_ranks_recorded(tmp_path / "run")
    assert not [f for f in a.findings if f.code == "DIV001"]
    assert all(set(f.ranks) == {0, 1} for f in a.findings if f.family == "BRK")


def test_divergent_ranks_rule():
    assert divergent_ranks({0: 2, 1: 2, 2: 5, 3: 2}) == [2]
    assert divergent_ranks({0: 0, 1: 1}) == [1]  # no majority: the rank that did more is the odd one
    assert divergent_ranks({0: 1, 1: 1, 2: 0, 3: 0}) == [0, 1]


def test_failing_job_keeps_its_summary_and_torchruns_exit_code(tmp_path, session_env):
    program = str(PROGRAMS / "fails_on_rank1.py")
    plain = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", program],
        cwd=PROGRAMS, env=session_env, capture_output=True, text=True, timeout=400,
    )
    assert plain.returncode != 0  # torchrun's own status for a job whose rank 1 exited 3
    out = tmp_path / "run"
    done = subprocess.run(LAUNCHERS["tdiag"](str(out), program), cwd=PROGRAMS, env=session_env, capture_output=True,
                          text=True, timeout=400)
    assert done.returncode == plain.returncode, done.stderr
    assert FAILED_AFTER_FINISH not in done.stderr  # rank 1's program did not run to its end
    # one merged summary, over both ranks' records, naming the print() break of the program
    assert done.stderr.count("what torch.compile did") == 1, done.stderr
    a = build(out)
    assert a.run.ranks == [0, 1]
    assert any(f.code == "BRK004" and set(f.ranks) == {0, 1} for f in a.findings), [f.code for f in a.findings]
    assert "BRK004" in done.stderr


@pytest.mark.parametrize("attempt", range(3))
def test_ddp_job_with_barrier_exits_cleanly_every_time(tmp_path, session_env, attempt):
    """Compiled DDP steps, barrier, destroy_process_group: three runs (a test each, so xdist spreads them), no retry.
    Each exits 0, or ends in torch's own gloo exit abort after every rank recorded its program's end
    (tests/gloo_exit.py: reproduced without tdiag by scripts/gloo_exit_race.py). scripts/ddp_exit_soak.py runs the
    same job 20 times for the figure."""
    run_ranks("tdiag", "ddp_barrier.py", tmp_path / "run", session_env)
    check_both_ranks_recorded(tmp_path / "run")


def test_abort_after_every_program_finished_is_said_and_keeps_torchruns_exit_code(tmp_path, session_env):
    """Both programs end, then each rank aborts in Python's shutdown: torchrun's status stands, and tdiag says the
    programs finished (torch's gloo exit abort looks like this to a user: tests/gloo_exit.py)."""
    program = str(PROGRAMS / "aborts_at_shutdown.py")
    (tmp_path / "plain").mkdir()
    plain = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", program],
        cwd=PROGRAMS, env={**session_env, "SYNC_DIR": str(tmp_path / "plain")}, capture_output=True, text=True,
        timeout=400,
    )
    assert plain.returncode != 0 and "rank 0 done" in plain.stdout
    (tmp_path / "tdiag").mkdir()
    done = subprocess.run(LAUNCHERS["tdiag"](str(tmp_path / "run"), program), cwd=PROGRAMS,
                          env={**session_env, "SYNC_DIR": str(tmp_path / "tdiag")}, capture_output=True, text=True,
                          timeout=400)
    assert done.returncode == plain.returncode, done.stderr
    assert "rank 0 done" in done.stdout and "rank 1 done" in done.stdout
    assert FAILED_AFTER_FINISH in done.stderr
