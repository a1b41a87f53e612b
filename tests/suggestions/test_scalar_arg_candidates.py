"""A Python int passed to a compiled step and on to other code (a diffusion timestep): two fixes could apply, so both
are candidates, ordered by the device the run measured. On a CPU the symbolic int (dynamic=True) first; on CUDA the
tensor first, created on the device of the step's tensor argument, since CUDA graphs record once per value of an int
input and replay a tensor (torch/_inductor/cudagraph_trees.py keys its recordings on the int inputs).

The program is recorded for real under `tdiag run`; the CUDA ordering is judged from the same record with its
measured device set to "cuda" (this machine has no GPU: the fact is what the judgement reads). Each patch is then
applied and run plainly, without tdiag, with torch's own recompile log as the oracle: the same stdout, no recompile.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.analyzer.suggestions import apply_patch, attach_suggestions
from tdiag_testing import plain_env, plain_run

PROGRAM = Path(__file__).parent / "programs" / "timestep_arg.py"


def _plain_run(script: Path) -> tuple[str, int]:
    """stdout and torch's count of recompiles, from a run without tdiag."""
    proc = plain_run(script, TORCH_LOGS="recompiles")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr.count("Recompiling function")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    work = tmp_path_factory.mktemp("timestep")
    script = work / PROGRAM.name
    shutil.copy(PROGRAM, script)
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(work / "record"),
                           script.name], cwd=work, env=plain_env(), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return work, script


def _suggestion(record: Path, device: str | None = None):
    analysis = build(record)
    [finding] = [f for f in analysis.findings if f.code == "RCP002"]
    if device is not None:
        analysis.summary.runtime.device = device
        finding.suggestion = None
        attach_suggestions([finding], analysis)
    return finding.suggestion


def test_on_a_cpu_the_symbolic_int_comes_first_and_the_tensor_is_the_next_candidate(recorded):
    work, _ = recorded
    first = _suggestion(work / "record")
    assert "dynamic=True" in first.title and "passes on to other code" in first.title, first.title
    assert "size or in a branch" not in first.title + first.why  # the source shows no size and no if
    assert "+@torch.compile(backend=\"eager\", dynamic=True)" in first.patch
    [tensor] = first.candidates
    assert tensor.title == "Pass `t` as a tensor"
    assert "+        loss = train_step(x, torch.tensor(t))" in tensor.patch
    assert tensor.patch_note and "candidate to verify" in tensor.patch_note  # not checked from the source


def test_on_cuda_the_tensor_comes_first_on_the_step_tensors_device(recorded):
    work, _ = recorded
    first = _suggestion(work / "record", device="cuda")
    assert first.title == "Pass `t` as a tensor"
    assert "+        loss = train_step(x, torch.tensor(t, device=x.device))" in first.patch
    assert "CUDA graphs" in first.why
    [symbolic] = first.candidates
    assert "dynamic=True" in symbolic.title


def test_every_candidate_keeps_the_output_and_ends_the_recompiles(recorded, tmp_path):
    work, script = recorded
    before_out, before_recompiles = _plain_run(script)
    assert before_recompiles >= 1  # the program shows the problem: a new timestep compiles again
    patches = [_suggestion(work / "record"), _suggestion(work / "record", device="cuda")]
    patches += [c for s in patches for c in s.candidates]
    assert len({p.patch for p in patches}) == 3  # dynamic=True, the tensor, the tensor on x's device
    for n, suggestion in enumerate(patches):
        patched = tmp_path / str(n) / script.name
        patched.parent.mkdir()
        patched.write_text(apply_patch(script.read_text(), suggestion.patch))
        out, recompiles = _plain_run(patched)
        assert out == before_out, suggestion.title
        assert recompiles == 0, suggestion.title
