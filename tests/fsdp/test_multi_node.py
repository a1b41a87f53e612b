"""The several-nodes recipe (docs/multi-node.md), on loopback: two torchrun launchers (``--nnodes 2 --node-rank 0|1``),
each running its rank under ``python -m tdiag run -o DIR``, into one shared directory, and, for nodes without a
shared filesystem, into a directory per node whose rank files are collected afterwards. Either way the record reads
as one 2-rank job with each rank's node (hostname) from its own header.

torch's accounting for the program (one requires_grad recompile per rank, no break) is the FSDP2 corpus's
(test_fsdp2_gloo.py checks it against plain torchrun).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import gloo_exit
import pytest
from tdiag.analyzer import build

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

PROGRAM = Path(__file__).parent / "programs" / "per_block.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _two_nodes(out: dict[int, Path], env: dict[str, str]) -> None:
    port = _free_port()
    launchers = []
    for node in (0, 1):
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2", "--node-rank", str(node),
               "--nproc-per-node", "1", "--master-addr", "127.0.0.1", "--master-port", str(port),
               "-m", "tdiag", "run", "--no-tui", "-o", str(out[node]), PROGRAM.name, "4"]
        launchers.append(subprocess.Popen(cmd, cwd=PROGRAM.parent, env={**env, **gloo_exit.ENV, "MODE": "blocks"},
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for node, proc in enumerate(launchers):
        stdout, stderr = proc.communicate(timeout=300)
        done = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
        gloo_exit.assert_job_exited_cleanly(done, out[node])


def _assert_one_job(run_dir: Path, env: dict[str, str]) -> None:
    a = build(run_dir)
    assert a.run.ranks == [0, 1] and a.run.complete
    assert a.run.hosts == {0: socket.gethostname(), 1: socket.gethostname()}
    (rcp,) = [f for f in a.findings if f.code == "RCP006"]
    assert rcp.ranks == {0: 1, 1: 1} and rcp.by_design
    report = subprocess.run([sys.executable, "-m", "tdiag", "report", str(run_dir), "--format", "json"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert report.returncode in (0, 1), report.stderr
    assert json.loads(report.stdout)["run"]["hosts"] == {"0": socket.gethostname(), "1": socket.gethostname()}


def test_two_launchers_into_one_shared_directory_merge_as_one_job(tmp_path, session_env):
    shared = tmp_path / "job"
    _two_nodes({0: shared, 1: shared}, session_env)
    assert sorted(p.name for p in shared.glob("events*.jsonl")) == ["events.rank0.jsonl", "events.rank1.jsonl"]
    _assert_one_job(shared, session_env)


def test_nodes_without_a_shared_filesystem_collect_their_rank_files(tmp_path, session_env):
    per_node = {0: tmp_path / "node0", 1: tmp_path / "node1"}
    _two_nodes(per_node, session_env)
    collected = tmp_path / "collected"
    collected.mkdir()
    for node, directory in per_node.items():  # what `rsync node:DIR/events.rank*.jsonl collected/` does
        (own,) = directory.glob("events.rank*.jsonl")
        assert own.name == f"events.rank{node}.jsonl"
        shutil.copy(own, collected / own.name)
    _assert_one_job(collected, session_env)
