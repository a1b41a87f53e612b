"""Same output, measured (issue 63): a patched run's output is judged within the unchanged program's own run-to-run
spread, never by a fixed rule, and every round against the original program's runs.

The oracles are the programs run plainly, without tdiag: their own stdouts over unchanged runs say what varies by
itself, and a plain run of the patched text says what the patch changed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tdiag.analyzer.output_noise import measure_baseline
from tdiag.analyzer.stdout_match import match

from ._project import make_project

NOISE_PROGRAMS = Path(__file__).parent / "noise_programs"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")


def _plain(folder: Path, program: str, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, program], cwd=folder, env={**env, **extra}, capture_output=True, text=True,
                          timeout=300)


def test_a_loss_moved_by_1e4_is_refused_where_the_baseline_never_varies(tmp_path, session_env):
    """The issue's case: the fixed rule let loss 1.1065 -> 1.1066 pass. On a program whose two unchanged runs and
    eager run print the same bytes, a result moved by 1e-4 is a change."""
    shutil.copy(NOISE_PROGRAMS / "steady_loss.py", tmp_path)
    runs = [_plain(tmp_path, "steady_loss.py", session_env) for _ in range(2)]
    eager = _plain(tmp_path, "steady_loss.py", session_env, TORCH_COMPILE_DISABLE="1")
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout == eager.stdout, runs[0].stderr[-2000:]
    moved = _plain(tmp_path, "steady_loss.py", session_env, LOSS_SHIFT="1e-4")
    assert moved.stdout != runs[0].stdout

    baseline = measure_baseline([r.stdout for r in runs], [eager.stdout], 0, eager.returncode)
    assert baseline.parity.verdict == "same as eager"
    assert "identical over 3 unchanged runs" in baseline.words
    verdict, _ = baseline.judge(moved.stdout)
    assert not verdict.same and verdict.first_difference.startswith("line 1: loss")
    assert baseline.judge(runs[1].stdout)[0].same
    # the fixed rule it replaces let this through (one unit of the last digit, 1e-3 relatively)
    assert match(runs[0].stdout, moved.stdout).same


def test_a_run_within_the_programs_own_spread_is_the_same_output(tmp_path, session_env):
    """noisy_metric.py prints an accuracy that varies from run to run by itself (its third run differs from its first
    two). Judged within the band of the first two and eager, the third is the same output; the fixed rule refused it."""
    shutil.copy(NOISE_PROGRAMS / "noisy_metric.py", tmp_path)
    runs = [_plain(tmp_path, "noisy_metric.py", session_env) for _ in range(3)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-2000:]
    assert len({r.stdout for r in runs}) == 3  # each run prints its own accuracies
    (tmp_path / "runs.log").unlink()
    eager = _plain(tmp_path, "noisy_metric.py", session_env, TORCH_COMPILE_DISABLE="1")
    baseline = measure_baseline([runs[0].stdout, runs[1].stdout], [eager.stdout], 0, eager.returncode)
    assert baseline.parity.verdict == "same as eager", baseline.parity
    assert "vary run to run by themselves" in baseline.words and "acc" in baseline.words
    assert baseline.judge(runs[2].stdout)[0].same
    assert not match(runs[0].stdout, runs[2].stdout).same
    # a real change beyond the spread is still refused
    shifted = runs[2].stdout.replace("acc 0.", "acc 1.")
    assert not baseline.judge(shifted)[0].same


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")
def test_fix_verify_keeps_a_patch_on_a_program_whose_output_varies_by_itself(tmp_path, session_env):
    """End to end: the baseline runs once and once eagerly, and again since eager printed other numbers; the report
    says what varied and that compiled equals eager, and the print patch is kept (the fixed rule refused this program's own runs as 'output changed')."""
    # one run count for every copy fix --verify runs (a GPU's noise shows in each run, whichever copy it runs in)
    env = {**session_env, "NOISE_RUNS_DIR": str(tmp_path / "runs")}
    (tmp_path / "runs").mkdir()
    project = make_project(tmp_path, NOISE_PROGRAMS / "noisy_metric.py", env)
    rc, data = project.fix_json("--verify")
    assert rc == 0, data
    assert "vary run to run by themselves" in data["output"]["noise"], data["output"]
    assert data["output"]["parity"]["verdict"] == "same as eager"
    kept = [p["id"] for p in data["kept"]]
    # the print's patch, and (once the print is gone) the step's backward answered by compiling the model it calls
    assert any(i.startswith("BRK004@") for i in kept), data["round_outcomes"]
    assert all(i.startswith(("BRK004@", "BRK005@")) for i in kept), data["round_outcomes"]
    first = data["verification"][0]
    assert first["before"]["runs"] >= 2 and first["output_judged"]


# A bf16 ViT trained on an H100 (benchmarks/gpu_programs/vit_bf16_noisy.py, torch 2.11): seven unchanged runs of it,
# as the GPU printed them (2026-12-07; two as `fix --verify`'s baseline, the rest plain, under `tdiag run`, and
# eagerly). Two runs of one line under-estimate its noise; every epoch's loss is the same quantity's.
GPU_BASELINE = [
    "epoch 0 acc 0.390 loss 1.7041\nepoch 1 acc 0.570 loss 1.6404\nepoch 2 acc 0.571 loss 1.5285\n"
    "epoch 3 acc 0.571 loss 1.4358\nstep ms 7.431\n",
    "epoch 0 acc 0.390 loss 1.7044\nepoch 1 acc 0.570 loss 1.6401\nepoch 2 acc 0.571 loss 1.5289\n"
    "epoch 3 acc 0.571 loss 1.4360\nstep ms 7.972\n",
]
GPU_LATER_RUNS = [
    "epoch 0 acc 0.391 loss 1.7044\nepoch 1 acc 0.570 loss 1.6401\nepoch 2 acc 0.571 loss 1.5289\n"
    "epoch 3 acc 0.571 loss 1.4360\nstep ms 11.823\n",
    "epoch 0 acc 0.390 loss 1.7046\nepoch 1 acc 0.570 loss 1.6398\nepoch 2 acc 0.571 loss 1.5289\n"
    "epoch 3 acc 0.571 loss 1.4359\nstep ms 7.341\n",
    "epoch 0 acc 0.390 loss 1.7040\nepoch 1 acc 0.570 loss 1.6402\nepoch 2 acc 0.571 loss 1.5284\n"
    "epoch 3 acc 0.571 loss 1.4356\nstep ms 7.690\n",
]


def test_a_gpu_programs_later_runs_are_within_its_noise_pooled_over_its_epochs():
    """The band of two runs alone refuses the program's own later runs (acc 0.391 where both printed 0.390; loss
    1.7046 beyond 1.7041..1.7044 widened by twice 3e-4): a noisy program's numbers that two runs agreed on get a
    last-digit unit, and each loss line the largest relative spread of any loss line. A real change is still one."""
    from tdiag.analyzer.output_noise import band_of, judge

    band = band_of(GPU_BASELINE)
    for later in GPU_LATER_RUNS:
        verdict = judge(band, later)
        assert verdict.same, verdict.differences
    changed_acc = GPU_LATER_RUNS[0].replace("acc 0.391", "acc 0.420")
    changed_loss = GPU_LATER_RUNS[1].replace("loss 1.5289", "loss 1.5389")
    assert not judge(band, changed_acc).same and not judge(band, changed_loss).same
    # a bit-identical program stays exact: its loss moved by 1e-4 is a change
    exact = band_of(["loss 1.1065\n", "loss 1.1065\n"])
    assert not judge(exact, "loss 1.1066\n").same
