"""The CPU case of issue 41, end to end: a program written as the CPU tutorials write it (a compiled model, Adam at
its defaults) spends more of each step in the eager per-parameter Adam than in the compiled forward and backward.
`tdiag fix --verify --apply` keeps an optimizer patch in its final set, the measured step gets at least 10% faster,
the printed losses are unchanged, and `--undo` restores the file byte for byte.

The expectation is an expert's: the optimizer loop is most of the step (RUN001 measures it), and foreach or fused
Adam computes the same update with a handful of ops instead of a dozen per parameter. One module-scoped run (real
Inductor: the subject is a compiled forward and backward, g++ per kernel on a CPU).
"""

from __future__ import annotations

import shutil
import statistics

import pytest

from ._project import PROGRAMS, make_project

# slow: up to 8 `tdiag run`s under Inductor (before, then foreach, fused, the compiled step, two runs each)
pytestmark = [pytest.mark.inductor, pytest.mark.slow, pytest.mark.timeout(2400),
              pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop needs git")]


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory, session_env):
    project = make_project(tmp_path_factory.mktemp("tutorial"), PROGRAMS / "tutorial_adam.py", session_env, "inductor")
    original = (project.root / "tutorial_adam.py").read_bytes()
    # before, then up to three candidates (foreach, fused, the compiled step), two runs each
    code, data = project.fix_json("--verify", "--apply", "--repeat", "2", timeout=1500)
    return project, code, data, original


def test_run001_measures_the_optimizer_and_offers_its_patch(tutorial):
    project, _, data, _ = tutorial
    (patch,) = [p for p in data["patches"] if "RUN001" in p["codes"]]
    assert "foreach=True" in patch["title"]
    assert "+optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)" in patch["patch"].splitlines()


def test_an_optimizer_patch_is_kept_and_the_step_is_faster(tutorial):
    _, code, data, _ = tutorial
    kept = [p for p in data["kept"] or [] if "RUN001" in p["codes"]]
    assert kept, (data["stopped"], [(c["label"], c["timing"], c["problems"]) for c in data["verification"]])
    # the first round's kept patch is the optimizer's; a later round may keep another candidate on top of it (the
    # compiled step, measured faster again), each judged against the round before it
    verdict = next(c for c in data["verification"] if c["kept"])
    before = statistics.median(verdict["before"]["step_times_s"])
    after = statistics.median(verdict["after"]["step_times_s"])
    assert after <= 0.9 * before, (before, after, verdict["timing"])
    assert verdict["stdout_identical"] and verdict["after"]["exit_code"] == 0
    # exit 1 is allowed: a later round may measure another candidate (the compiled step) as slower and refuse it
    assert code in (0, 1)


def test_apply_wrote_the_kept_patch_and_undo_restores_the_bytes(tutorial):
    project, _, data, original = tutorial
    patched = (project.root / "tutorial_adam.py").read_text()
    assert data["applied"]["files"] == ["tutorial_adam.py"]
    assert "foreach=True" in patched or "fused=True" in patched or "opt_step()" in patched
    undone = project.fix("--undo")
    assert undone.returncode == 0, undone.stderr
    assert (project.root / "tutorial_adam.py").read_bytes() == original
    assert project.git("status", "--porcelain") == ""
