"""The general causes blind batch 9's first score found (tests/blind_batch_9/SCORE.md) in crashes, break types and
the step's eager share, on the batch's own programs (written by someone who had not read tdiag's code); torch's own
account of plain runs (truth/, and plain runs of the patched programs) is the oracle."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag_testing import plain_run

from tdiag.analyzer import build

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_9"
pytestmark = pytest.mark.slow  # one recorded run of each program, and a fix flow


def _truth(program: str, name: str) -> str:
    return (BATCH / "truth" / program / name).read_text()


def _record(program: str, root: Path, env: dict, *options: str) -> Path:
    shutil.copy(BATCH / "programs" / f"{program}.py", root / f"{program}.py")
    for git in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "i"]):
        subprocess.run(["git", *git], cwd=root, check=True, capture_output=True)
    proc = kept_tdiag(["run", "--no-tui", "-q", *options, "-o", "rec", f"{program}.py"], root, env, timeout=600)
    assert proc.returncode == int(_truth(program, "exit_status.txt")), proc.stderr[-3000:]
    assert proc.stdout == _truth(program, "stdout.txt")  # the program's own output, unchanged
    return root / "rec"


def test_an_error_a_traced_try_meant_to_catch_is_named_there_and_disabling_its_function_runs_as_eager(
        tmp_path, session_env):
    """GPyTorch's psd_safe_cholesky: `try: cholesky(K) except RuntimeError: cholesky(K + jitter)`, traced into the
    compiled loss. torch's plain run stops with _LinAlgError; eager runs to its end. tdiag said only "fix what
    torch's message names ... report it to PyTorch"."""
    program = "gp_cholesky_jitter"
    assert _truth(program, "exit_status.txt").strip() == "1" and _truth(program, "exit_status_eager.txt").strip() == "0"
    (crash,) = [f for f in build(_record(program, tmp_path, session_env, "--vs-eager")).findings
                if f.code.startswith("CRS")]
    assert crash.line == 36  # the compiled call that raised
    assert "the `try` at gp_cholesky_jitter.py:16 in psd_safe_cholesky catches RuntimeError" in crash.message
    assert "runs to its end (exit 0)" in crash.message  # the eager side of --vs-eager
    assert "@torch.compiler.disable" in crash.fix and "psd_safe_cholesky" in crash.fix

    fixed = kept_tdiag(["fix", "rec", "--verify", "--apply", "--format", "json"], tmp_path, session_env, timeout=600)
    data = json.loads(fixed.stdout)
    assert data["verification"][-1]["kept"], data["verification"][-1]
    source = (tmp_path / f"{program}.py").read_text()
    assert "@torch.compiler.disable\ndef psd_safe_cholesky" in source
    after = plain_run(tmp_path / f"{program}.py")  # torch's own run of the patched program, no tdiag
    assert after.returncode == 0 and after.stdout == _truth(program, "stdout_eager.txt")


@pytest.mark.parametrize("program", ["multimodal_dict_order", "bert_problem_type"])
def test_under_the_eager_backend_the_backward_is_not_a_reason_to_compile_the_loss(program, tmp_path, session_env):
    """backend="eager" runs Dynamo's graphs op by op and compiles no backward, whatever the function holds: RUN001's
    "compute the loss inside the compiled function, so their backward is compiled too" was wrong on both (bert
    computes its loss inside the model). The step is measured; what RUN001 may still say is a lever that compiles
    nothing (the optimizer's implementation)."""
    assert 'backend="eager"' in (BATCH / "programs" / f"{program}.py").read_text()
    analysis = build(_record(program, tmp_path, session_env))
    assert analysis.summary.runtime.status == "measured"
    for run001 in [f for f in analysis.findings if f.code == "RUN001"]:
        assert set(run001.evidence.parts_ms_per_step) <= {"optimizer", "data movement"}, run001.message
    assert not any("backward is compiled too" in f.fix or "compile the whole step" in f.fix for f in analysis.findings)


def test_a_scipy_ufunc_on_numpy_data_is_a_call_dynamo_cannot_trace_with_the_custom_op_fix(tmp_path, session_env):
    """scipy.special.ive on `z.detach().cpu().numpy()` inside an autograd.Function: torch's break is gb0156, the
    ufunc's `__call__` (truth/), not the `.numpy()` conversion tdiag named from the line's text."""
    program = "vmf_bessel_scipy"
    assert "gb0156" in _truth(program, "trace_summary.md") and "of class `ufunc`" in _truth(program, "trace_summary.md")
    findings = [f for f in build(_record(program, tmp_path, session_env)).findings if f.line == 20]
    assert findings and not [f for f in findings if f.code == "BRK003"]
    assert "torch.library.custom_op" in findings[0].fix and "not allow_in_graph" in findings[0].fix


def test_a_torchscript_module_gets_torchs_own_advice_not_the_loop_template(tmp_path, session_env):
    """gb4695: the frame calling a ScriptModule is skipped whole; torch's explanation says to use the eager module.
    tdiag gave the loop/with-block template."""
    program = "torchscript_backbone_head"
    (skipped,) = [f for f in build(_record(program, tmp_path, session_env)).findings if f.code == "BRK006"]
    assert skipped.line == 31
    assert "loop/with-block" not in skipped.fix
    assert "torch.compile(submodule)" in skipped.fix and "original nn.Module" in skipped.fix


def test_a_tensor_subclass_counting_ops_is_named_and_integer_counts_are_not_called_rounding(tmp_path, session_env):
    """A __torch_function__ that counts ops into a global Counter, fed to the compiled model: torch's plain runs print
    943 calls compiled and 68 eagerly (truth/). tdiag under --vs-eager said "compiled code rounds floating-point
    operations in another order" for integer counts and a dict with other keys."""
    program = "op_counter_subclass"
    assert "total calls 943" in _truth(program, "stdout.txt") and "total calls 68" in _truth(program, "stdout_eager.txt")
    findings = build(_record(program, tmp_path, session_env, "--vs-eager")).findings
    (known,) = [f for f in findings if f.code == "EGR003"]
    assert known.line == 13 and "`CountingTensor`" in known.message and "__torch_function__" in known.message
    assert "as_subclass(torch.Tensor)" in known.fix
    assert not [f for f in findings if "floating-point" in f.message]


def test_a_warnings_filter_set_inside_compiled_code_is_moved_out_not_a_library_call_to_change(tmp_path, session_env):
    """`with warnings.catch_warnings(): warnings.simplefilter("ignore")` in forward: torch breaks on the C function
    behind the filter list (gb0007, then gb0092 in the with block: truth/). tdiag said "the break is inside a library
    `_add_filter`: change how this line calls it"."""
    program = "upsample_catch_warnings"
    assert "gb0092" in _truth(program, "trace_summary.md").lower()
    (brk,) = [f for f in build(_record(program, tmp_path, session_env)).findings if f.line == 21]
    assert brk.fix.startswith("set the warning filter outside compiled code")
    assert "change how this line calls it" not in brk.fix


def test_a_skipped_scipy_call_in_a_loop_names_the_callee_and_the_function_that_runs_eagerly(tmp_path, session_env):
    """DETR's Hungarian matcher: scipy's linear_sum_assignment per image in a loop (gb0007, then the loop's frame
    skipped: truth/). The skip's own record says only "frame skipped: hungarian_match"; tdiag's fix was the
    tensor-conversion template read off the line's `.numpy()`, then the generic one."""
    program = "detr_hungarian_loss"
    (skipped,) = [f for f in build(_record(program, tmp_path, session_env)).findings if f.code == "BRK006"]
    assert skipped.line == 32 and skipped.message.startswith("hungarian_match runs eagerly")
    assert "linear_sum_assignment" in skipped.message and "linear_sum_assignment" in skipped.fix
    assert "@torch.compiler.disable" in skipped.fix and "vectorise" not in skipped.fix
