"""A training step compiled whole around its model, broken by its own code (blind batch 6's
grad_accum_compiled_step.py, written by someone who had not read tdiag's code): `loss.backward()` at line 29, then
`if (step + 1) % ACCUM == 0: optimizer.step(); optimizer.zero_grad()`. Moving only the backward out would run the
optimizer step before the last micro-batch's backward; the expert's fix is to compile the model and leave the step
eager (analyzer/suggestions/compile_module.py).

The oracle is torch's own: its log of the original program kept with the batch (truth/), and the patched program run
plainly under TORCH_LOGS=graph_breaks: no break, and the output of the original.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_6"
PROGRAM = BATCH / "programs" / "grad_accum_compiled_step.py"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="tdiag fix needs git")]


def test_a_step_compiled_around_its_model_gets_the_model_compiled_and_torch_confirms_it(tmp_path, session_env):
    truth = (BATCH / "truth" / "grad_accum_compiled_step" / "torch_logs.txt").read_text()
    assert f"Graph break in user code at tests/blind_batch_6/programs/{PROGRAM.name}:29" in truth
    assert "Tensor.backward" in truth and "Recompiling function" in truth

    shutil.copy(PROGRAM, tmp_path / PROGRAM.name)
    for git in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "i"]):
        subprocess.run(["git", *git], cwd=tmp_path, check=True, capture_output=True)

    def tdiag(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tdiag", *args], cwd=tmp_path, env=session_env,
                              capture_output=True, text=True, timeout=600)

    assert tdiag("run", "--no-tui", "-q", "-o", "rec", PROGRAM.name).returncode == 0
    [finding] = [f for f in json.loads(tdiag("lint", "rec", "--format", "json").stdout)
                 if f["location"]["row"] == 29]
    assert finding["fix"]["message"].startswith("compile the model train_step calls, not train_step"), finding
    assert "`compiled_model = torch.compile(model, backend=\"aot_eager\")`" in finding["fix"]["message"]

    fixed = tdiag("fix", "rec", "--verify", "--apply", "--rounds", "1", "--no-parity", "--format", "json")
    data = json.loads(fixed.stdout)
    assert [p["codes"] for p in data["kept"]] == [["BRK005"]], data["verification"]
    patched = (tmp_path / PROGRAM.name).read_text()
    assert "@torch.compile" not in patched and 'compiled_model = torch.compile(model, backend="aot_eager")' in patched
    assert "compiled_model(" in patched  # the step calls the compiled model; its other callers stay as written

    plain = subprocess.run([sys.executable, PROGRAM.name], cwd=tmp_path, capture_output=True, text=True,
                           env={**session_env, "TORCH_LOGS": "graph_breaks"}, timeout=600)
    assert plain.returncode == 0 and "Graph break" not in plain.stderr, plain.stderr[-2000:]
    assert plain.stdout == (BATCH / "truth" / "grad_accum_compiled_step" / "stdout.txt").read_text()
