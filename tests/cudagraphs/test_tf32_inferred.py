"""Inductor's TF32 warning where its compile cache kept torch silent: torch warns only while compiling a graph anew,
so on a warm cache (every run after the first, every `tdiag fix --verify` run) WRN001/WRN002 would vanish. The
capture records what torch's check reads (the GPU's capability, the float32 matmul precision, at exit); the analysis
puts the warning torch would have printed at the float32 GEMM's line (analyzer/tf32_state.py).

On a CPU: the real record of an Inductor run (its CPU GEMM is not a GPU's: nothing inferred), and the same analysis
with its GEMM as a GPU run records it (cuBLAS) and the exit state a GPU run writes. On a GPU machine the last test
runs a program twice on one compile cache and finds WRN001 and WRN002 on the warm run, where torch printed nothing.
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch
from tdiag.analyzer import build
from tdiag.analyzer.torch_warnings import inferred_tf32 as inferred
from tdiag_testing import run_tdiag

TRAIN = """import torch

model = torch.nn.Linear(64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def step(x):
    return model(x).relu().sum()


for i in range(6):
    step(torch.ones(32, 64)).backward()
    opt.step()
"""
GPU_EXIT = {"capability": [9, 0], "precision": "highest", "allow_tf32": False}


@pytest.fixture(scope="module")
def cpu_record(tmp_path_factory, session_env):
    root = tmp_path_factory.mktemp("tf32")
    (root / "train.py").write_text(TRAIN)
    proc = run_tdiag(["run", "--no-tui", "-q", "--no-profile", "-o", str(root / "rec"), "train.py"], session_env,
                     cwd=root)
    assert proc.returncode == 0, proc.stderr
    return build(root / "rec")


def _as_on_a_gpu(analysis):
    """The CPU run's GEMMs as a GPU run records them: cuBLAS calls."""
    gemms = [k for g in analysis.graphs for k in g.kernels if k.name.startswith("extern_kernels.")]
    assert gemms, [k.name for g in analysis.graphs for k in g.kernels]
    for k in gemms:
        k.backend = "cublas"
    return analysis


def test_a_cpu_run_infers_nothing(cpu_record):
    log = SimpleNamespace(exits={None: {"code": 0}})  # a CPU run's exit: no matmul state
    assert inferred(log, cpu_record, []) == []
    assert not [f for f in cpu_record.findings if f.code in ("WRN001", "WRN002")]


def test_a_warm_gpu_run_gets_the_warning_at_its_gemm_line(cpu_record):
    analysis = _as_on_a_gpu(cpu_record)
    (warning,) = inferred(SimpleNamespace(exits={None: {"code": 0, "matmul": GPU_EXIT}}), analysis, [])
    assert warning.entry.id == "tf32-not-enabled" and warning.inferred
    assert (warning.site.path, warning.site.line) == ("train.py", 9)  # model(x): the Linear's GEMM
    assert "not printed in this run" in warning.attributed


@pytest.mark.parametrize("state", [{**GPU_EXIT, "precision": "high"}, {**GPU_EXIT, "allow_tf32": True},
                                   {**GPU_EXIT, "capability": [7, 5]}])
def test_tf32_on_or_a_gpu_without_it_infers_nothing(cpu_record, state):
    analysis = _as_on_a_gpu(cpu_record)
    assert inferred(SimpleNamespace(exits={None: {"code": 0, "matmul": state}}), analysis, []) == []


@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (8, 0),
                    reason="torch's TF32 check needs a GPU with TF32 tensor cores")
def test_on_a_gpu_the_warm_run_keeps_wrn001_and_wrn002(tmp_path):
    import os

    # the loss on a line of its own, its backward on the next: what WRN002's patch wraps (a call whose own line runs
    # the backward gets no patch)
    (tmp_path / "train.py").write_text(TRAIN.replace("torch.nn.Linear(64, 64)", "torch.nn.Linear(64, 64).cuda()")
                                       .replace("    step(torch.ones(32, 64)).backward()\n",
                                                '    loss = step(torch.ones(32, 64, device="cuda"))\n    loss.backward()\n'))
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    for run in ("cold", "warm"):
        proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(tmp_path / run),
                               "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        assert proc.returncode == 0, proc.stderr
    assert "TensorFloat32" not in proc.stderr  # torch printed nothing on the warm run
    codes = {f.code: f for f in build(tmp_path / "warm").findings}
    assert "WRN001" in codes and "WRN002" in codes, sorted(codes)
    assert "not printed in this run" in codes["WRN001"].message and codes["WRN002"].suggestion.patch
