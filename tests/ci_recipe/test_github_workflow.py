"""examples/ci/github-workflow.yml, run step by step on a scratch git repository (no GitHub): a change that adds a
graph break fails the gate, one that removes it passes; the report artifact, the annotations and the job summary are
checked each time. The graph break's line is torch's own (GB id and line from a TORCH_TRACE run without tdiag)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
from oracle import account  # noqa: E402
from workflow_runner import load, run_job  # noqa: E402

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "github-workflow.yml"

CLEAN = '''import argparse

import torch


def step(x):
    y = torch.sin(x)
    return y * 2


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1)
cstep = torch.compile(step, backend="eager")
for epoch in range(parser.parse_args().epochs):
    print(f"epoch {epoch}: {float(cstep(torch.ones(8)).sum()):.3f}")
'''
BROKEN = CLEAN.replace("    return y * 2\n", "    if y.sum() > 0:  # a branch on a tensor value\n        y = y + 1\n    return y * 2\n")
BREAK_LINE = 8


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture(scope="module")
def workflow() -> dict:
    return load(WORKFLOW)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("ci-repo")
    git(repo, "init", "-q", "-b", "main")
    (repo / "train.py").write_text(CLEAN, encoding="utf-8")
    git(repo, "add", "train.py")
    git(repo, "commit", "-qm", "clean step")
    return repo


@pytest.fixture(scope="module")
def runs(workflow, repo, tmp_path_factory, session_env):
    """Three jobs as CI would run them: main without a baseline; a PR adding a break against main's record
    committed as the baseline; a PR removing it against the broken record as the baseline."""
    import os

    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", session_env["TORCHINDUCTOR_CACHE_DIR"])
    scratch = tmp_path_factory.mktemp("ci-scratch")
    out = {"main": run_job(workflow, "tdiag", repo, scratch / "main", ref="refs/heads/main")}
    baseline = repo / ".tdiag" / "baseline"
    shutil.copytree(repo / "tdiag-record", baseline)
    shutil.rmtree(repo / "tdiag-record")
    (repo / "train.py").write_text(BROKEN, encoding="utf-8")
    git(repo, "add", "train.py", ".tdiag")
    git(repo, "commit", "-qm", "adds a graph break, keeps main's record as the baseline")
    out["adds"] = run_job(workflow, "tdiag", repo, scratch / "adds")
    shutil.rmtree(baseline)
    shutil.copytree(repo / "tdiag-record", baseline)
    shutil.rmtree(repo / "tdiag-record")
    (repo / "train.py").write_text(CLEAN, encoding="utf-8")
    out["removes"] = run_job(workflow, "tdiag", repo, scratch / "removes")
    return out


def test_workflow_shape(workflow):
    steps = workflow["jobs"]["tdiag"]["steps"]
    names = [s.get("name") for s in steps]
    assert names.index("Run under tdiag") < names.index("Annotate the diff and write the job summary") \
        < names.index("Gate on the baseline") < names.index("Upload the report and the record")
    assert workflow["defaults"]["run"]["shell"] == "bash"


def test_main_without_baseline_passes_and_uploads(runs, repo):
    job = runs["main"]
    assert not job.failed, [(s.name, s.returncode, s.stderr[-500:]) for s in job.steps]
    assert "no baseline record" in job.step("Gate on the baseline").stdout
    assert set(job.artifacts) == {"tdiag", "tdiag-record"}  # the report, and the record kept as the next baseline


def test_adding_a_graph_break_fails_the_gate(runs, repo, tmp_path, session_env):
    job = runs["adds"]
    gate = job.step("Gate on the baseline")
    assert job.failed and gate.returncode == 1, gate.stdout + gate.stderr
    assert "::error::tdiag" in gate.stdout and "BRK001" in gate.stdout
    # torch's own account of the new program: the break it logs is the line annotated
    program = tmp_path / "train.py"
    program.write_text(BROKEN, encoding="utf-8")
    torch_account = account(program, session_env, tmp_path / "trace", ["--epochs", "2"])
    assert [b["lines"][-1] for b in torch_account.breaks] == [("train.py", BREAK_LINE)]
    lint = job.step("Annotate the diff and write the job summary")
    assert lint.returncode == 0
    annotations = [line for line in lint.stdout.splitlines() if line.startswith("::")]
    assert any(a.startswith("::warning ") and f"file=train.py,line={BREAK_LINE}," in a and "BRK001" in a
               for a in annotations), annotations
    assert "BRK001" in job.summary and "tdiag diff against the baseline" in job.summary
    # the report is uploaded even though the gate failed (if: always())
    report, record = job.artifacts["tdiag"]
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") and "BRK001" in report.read_text()
    assert (record / "events.jsonl").is_file()
    assert "tdiag-record" not in job.artifacts  # a pull request does not replace the default branch's baseline


def test_removing_the_graph_break_passes_the_gate(runs):
    job = runs["removes"]
    gate = job.step("Gate on the baseline")
    assert not job.failed and gate.returncode == 0, gate.stdout + gate.stderr
    assert "fixed" in gate.stdout.lower() and "BRK001" in gate.stdout
    lint = job.step("Annotate the diff and write the job summary")
    assert not [line for line in lint.stdout.splitlines() if line.startswith("::warning")]
