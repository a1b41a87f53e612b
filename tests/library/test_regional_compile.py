"""Regional compilation as a verified candidate: a break in a transformers model's own code around its layers
(LayerDrop's `if dropout_probability < self.layerdrop`, data-dependent, in the layer loop of Bart's encoder and
decoder) cannot be edited by the user; compiling each repeated layer instead of the whole model can. The program
is written as transformers' docs show, with LayerDrop on in its config (regional_programs/hf_bart_layerdrop.py).

The oracle is torch's own trace of plain runs (no tdiag) before and after the patch: the breaks go, the printed loss
stays."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag_testing import require_installed

require_installed("transformers", reason="corpus extra not installed: pip install -e '.[corpus]'")
pytestmark = pytest.mark.slow  # three runs of a model and a verify: scripts/test's bounded second step

PROGRAM = Path(__file__).parent / "regional_programs" / "hf_bart_layerdrop.py"


def test_a_break_around_a_libraries_layers_gets_regional_compilation_verified(tmp_path, session_env):
    from oracle import account
    from tdiag.analyzer import build

    env = {**session_env, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    program = tmp_path / PROGRAM.name
    shutil.copy(PROGRAM, program)
    line = next(n for n, text in enumerate(program.read_text().splitlines(), 1) if "draws LayerDrop" in text)
    before = account(program, env, tmp_path / "trace-before")
    assert before.returncode == 0 and before.breaks, "the program no longer breaks: transformers changed LayerDrop"
    # torch's own account: data-dependent branching (GB0170), innermost in Bart's code, reached from the call
    assert any(b["gb_id"] == "GB0170" and b["lines"][-1][0] == "modeling_bart.py" for b in before.breaks)

    done = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", program.name], tmp_path, env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    analysis = build(str(tmp_path / "rec"))
    # Dynamo's own names (an id check's ___check_obj_id, L['...']) never reach the user: its guards read as words
    internal = [f.message for f in analysis.findings if "___" in f.message or "L['" in f.message]
    assert not internal, internal
    found = [f for f in analysis.findings if f.family == "BRK" and f.line == line]
    assert found and found[0].library_frame is not None and "modeling_bart.py" in found[0].library_frame.path
    suggestion = found[0].suggestion
    assert suggestion.patch and "layer.compile(backend=\"aot_eager\")" in suggestion.patch
    assert "_no_split_modules" in suggestion.patch

    fixed = kept_tdiag(["fix", "rec", "--verify", "--apply", "--repeat", "1"], tmp_path, env, timeout=900)
    assert fixed.returncode == 0, fixed.stdout[-3000:] + fixed.stderr[-3000:]
    text = program.read_text()
    assert "compiled = model\n" in text and "torch.compile(model" not in text
    after = account(program, env, tmp_path / "trace-after")
    assert after.returncode == 0 and after.breaks == [] and after.failed_frames == 0, after.breaks
    assert after.stdout == before.stdout  # the same loss, printed the same
