"""WRN002: where Inductor warned that float32 matmuls leave the tensor cores unused, the user's call of the compiled
code (and the loss after it) under `torch.autocast("cuda", dtype=torch.bfloat16)`, the backward outside, planned as
a step-time lever that `tdiag fix --verify` keeps only within the user's --output-tolerance.

torch prints the warning only on a GPU with TF32 tensor cores, so on a CPU the record of a real run (the compiled
model entered from the user's loop, its call site as the capture saw it) gets the warning as the capture writes it
on a GPU, its text read from the installed torch's own source (test_tf32_setting.py); on a GPU machine the last
test runs the real program.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from tdiag.analyzer import build
from tdiag.analyzer.suggestions import apply_patch
from tdiag.fixing.plan import is_step_time, plan_patches
from tdiag_testing import run_tdiag
from test_tf32_setting import tf32_warning_text

TRAIN = """import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
compiled = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train(steps):
    for i in range(steps):
        x = torch.randn(16, 32)
        y = torch.randint(0, 4, (16,))
        logits = compiled(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss


print(f"loss {train(5).item():.4f}")
"""
CALL_LINE = 14  # logits = compiled(x)


def _run_with_warning(tmp_path, session_env, text: str):
    """A real tdiag run of ``text``, with Inductor's TF32 warning added to its record for the first compile, as the
    capture writes it on a GPU (before the exit event)."""
    (tmp_path / "train.py").write_text(text)
    proc = run_tdiag(["run", "--no-tui", "-q", "--no-profile", "-o", str(tmp_path / "rec"), "train.py"], session_env,
                     cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    events = tmp_path / "rec" / "events.jsonl"
    lines = events.read_text().splitlines()
    path = str(tmp_path / "train.py")
    torch_file = str(Path(torch.__file__).parent / "_inductor" / "compile_fx.py")
    warning = {"type": "torch_warning", "t": 0.0, "message": tf32_warning_text(), "category": "UserWarning",
               "module": "torch._inductor.compile_fx", "filename": torch_file, "lineno": 321, "compile_id": "0/0",
               "traced_stack": [], "stack": [[path, CALL_LINE, "train"]],
               "user_frame": {"filename": path, "line": CALL_LINE, "name": "train"}}
    events.write_text("\n".join([*lines[:-1], json.dumps(warning), lines[-1]]) + "\n")
    return build(tmp_path / "rec")


def test_the_compiled_call_and_its_loss_go_under_bf16_autocast(tmp_path, session_env):
    assert TRAIN.splitlines()[CALL_LINE - 1].strip() == "logits = compiled(x)"
    analysis = _run_with_warning(tmp_path, session_env, TRAIN)
    (finding,) = [f for f in analysis.findings if f.code == "WRN002"]
    assert (finding.path, finding.line) == ("train.py", CALL_LINE)
    assert "bfloat16" in finding.message and "TensorFloat32" in finding.message
    suggestion = finding.suggestion
    assert suggestion.patch, suggestion.patch_note
    patched = apply_patch(TRAIN, suggestion.patch)
    assert ('        with torch.autocast("cuda", dtype=torch.bfloat16):\n'
            "            logits = compiled(x)\n"
            "            loss = F.cross_entropy(logits, y)\n"
            "        loss.backward()\n") in patched
    assert patched.count("\n") == TRAIN.count("\n") + 1  # one line added, nothing else moved
    assert suggestion.step_time and "--output-tolerance" in suggestion.why
    (planned,) = [p for p in plan_patches(analysis) if "WRN002" in p.codes]
    assert is_step_time(planned)
    # the patched program runs: on a machine without CUDA, torch disables the cuda autocast with a warning and the
    # program computes in float32, printing what it printed before
    (tmp_path / "patched.py").write_text(patched)
    plain = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    after = subprocess.run([sys.executable, "patched.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert after.returncode == 0, after.stderr
    if not torch.cuda.is_available():
        assert after.stdout == plain.stdout


def test_a_call_without_a_backward_after_it_is_wrapped_alone(tmp_path, session_env):
    text = TRAIN.replace("        loss.backward()\n", "")
    patched = apply_patch(text, [f for f in _run_with_warning(tmp_path, session_env, text).findings
                                 if f.code == "WRN002"][0].suggestion.patch)
    assert ('        with torch.autocast("cuda", dtype=torch.bfloat16):\n'
            "            logits = compiled(x)\n"
            "        loss = F.cross_entropy(logits, y)\n") in patched


def test_a_program_that_chooses_its_precision_gets_no_patch(tmp_path, session_env):
    text = TRAIN.replace("        logits = compiled(x)\n",
                         '        with torch.autocast("cuda", dtype=torch.float16):\n            logits = compiled(x)\n')
    (finding,) = [f for f in _run_with_warning(tmp_path, session_env, text).findings if f.code == "WRN002"]
    assert finding.suggestion.patch is None and "already" in finding.suggestion.patch_note


@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (8, 0),
                    reason="torch warns about TF32 only on a GPU with TF32 tensor cores")
def test_on_a_gpu_the_real_warning_gets_the_autocast_patch(tmp_path):
    program = tmp_path / "train.py"
    program.write_text(TRAIN.replace('backend="eager"', "").replace("torch.nn.Linear(64, 4))",
                                                                    'torch.nn.Linear(64, 4)).cuda()')
                       .replace("torch.randn(16, 32)", 'torch.randn(16, 32, device="cuda")')
                       .replace("(16,))", '(16,), device="cuda")'))
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(tmp_path / "rec"),
                           "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (finding,) = [f for f in build(tmp_path / "rec").findings if f.code == "WRN002"]
    assert (finding.path, finding.line) == ("train.py", CALL_LINE) and finding.suggestion.patch
