"""The general causes blind batch 7's first score found (tests/blind_batch_7/SCORE.md), on its own programs, written
by someone who had not read tdiag's code. Each program's cause is what its expectations (EXPECTED.md) name and torch's
own log of a plain run (truth/) shows; tdiag's finding must sit at the user's line and word that cause, never
torch's guard text. The compiled-vs-eager difference is checked against the program's plain runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag.analyzer import build
from tdiag.analyzer.guard_words import DYNAMO_INTERNAL

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_7"

# program -> (what torch's plain log shows, the finding's code and line, words its fix must hold)
CAUSES = {
    "bn_cumulative_momentum": ("Unsupported Tensor.item() call", "BRK002", 42, ("`momentum`", "cumulative")),
    "clip_grad_nonfinite_step": ("Data-dependent branching", "BRK006", 17, ("error_if_nonfinite=True",)),
    "gradcam_backward_hook": ("Module-level backwards hooks require compiled autograd", "BRK005", 41,
                              ("register_full_backward_hook", "torch.autograd.grad")),
    "attrdict_config_mlp": ("non-function __getattr__", "BRK006", 29, ("`__getattr__` as a method",)),
    "early_dropout_schedule": ("p == 0.10000000149011612", "RCP005", 21, ("register_buffer", ".fill_(value)")),
    "pyramid_block_compile": ("size mismatch at index", "RCP005", 21, ("compile the model that holds them once",)),
}


def _record(program: str, tmp_path: Path, env: dict, *extra: str) -> Path:
    shutil.copy(BATCH / "programs" / f"{program}.py", tmp_path / f"{program}.py")
    proc = kept_tdiag(["run", "--no-tui", "-q", *extra, "-o", "rec", f"{program}.py"], tmp_path, env, timeout=600)
    assert proc.returncode == int((BATCH / "truth" / program / "exit_status.txt").read_text()), proc.stderr
    assert proc.stdout == (BATCH / "truth" / program / "stdout.txt").read_text()  # the program's own output
    return tmp_path / "rec"


@pytest.mark.slow
@pytest.mark.parametrize("program", sorted(CAUSES))
def test_the_cause_is_worded_at_the_users_line(program, tmp_path, session_env):
    shown, code, line, words = CAUSES[program]
    assert shown in (BATCH / "truth" / program / "torch_logs.txt").read_text()  # torch's own account
    findings = build(_record(program, tmp_path, session_env)).findings
    matching = [f for f in findings if (f.code, f.line) == (code, line)]
    assert matching, [(f.code, f.line, f.fix) for f in findings]
    for word in words:
        assert word in matching[0].fix, matching[0].fix
    for f in findings:
        assert not DYNAMO_INTERNAL.search(f.message + f.fix), f.message  # no guard text the user does not hold
        assert "  # " not in f.message, f.message  # torch's source comments after a guard


@pytest.mark.slow
def test_a_padded_transformer_encoder_difference_is_named_and_its_fix_agrees_with_eager(tmp_path, session_env):
    program = "transformer_padding_pool"
    truth = BATCH / "truth" / program
    assert (truth / "stdout.txt").read_text() != (truth / "stdout_eager.txt").read_text()  # torch's plain runs differ
    findings = build(_record(program, tmp_path, session_env, "--vs-eager")).findings
    (egr,) = [f for f in findings if f.code == "EGR001"]
    assert "nested-tensor fast path" in egr.message and "masked_fill" in egr.fix

    # the fix the finding words (padded positions zeroed with the mask before pooling), on a copy: compiled agrees
    # with eager, as torch's plain runs show
    text = (BATCH / "programs" / f"{program}.py").read_text()
    pooled = "h = self.encoder(self.embed(tokens), src_key_padding_mask=pad_mask)\n"
    assert pooled in text
    fixed = text.replace(pooled, pooled + "        h = h.masked_fill(pad_mask[..., None], 0.0)\n")
    (tmp_path / "fixed.py").write_text(fixed)
    runs = [subprocess.run([sys.executable, "fixed.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                           env={**session_env, **extra}) for extra in ({}, {"TORCH_COMPILE_DISABLE": "1"})]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert runs[0].stdout == runs[1].stdout


@pytest.mark.slow
def test_module_instances_sharing_a_frame_are_one_cause_not_shapes_to_mark(tmp_path, session_env):
    """The pyramid's blocks of other widths share one compiled forward: the input's size and the strides of
    `self` that differ with them are symptoms of that cause, never sizes to mark dynamic or values "changed by
    each call" (the batch's FP1 and its false RCP002: truth/ shows the running_var guard among the failures)."""
    from tdiag.fixing.plan import plan_patches

    program = "pyramid_block_compile"
    assert "_buffers['running_var']' size mismatch" in (BATCH / "truth" / program / "torch_logs.txt").read_text()
    analysis = build(_record(program, tmp_path, session_env))
    recompiles = [f for f in analysis.findings if f.family == "RCP"]
    assert recompiles and {f.code for f in recompiles} <= {"RCP001", "RCP005"}, [(f.code, f.fix) for f in recompiles]
    for f in recompiles:
        assert "compile the model that holds them once" in f.fix, f.fix
        assert "mark_dynamic" not in f.fix and "dynamic=True" not in f.fix, f.fix
    assert not [p for p in plan_patches(analysis) if "mark_dynamic" in p.patch]
