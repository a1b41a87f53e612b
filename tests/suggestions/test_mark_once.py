"""One tensor passed to a compiled model under two parameters (`cmodel(input_ids=ids, labels=ids)`, as transformers'
docs train a causal LM) grows a dimension: Dynamo makes both parameters' size dynamic at the recompile, and the
patch marks the tensor the user holds once, not once per parameter (peft_train's flow wrote the same
`mark_dynamic(ids, 1)` line three times).

Recorded for real under `tdiag run`; the patch is applied and run plainly, without tdiag, with torch's own recompile
log as the oracle: the same stdout, no recompile.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tdiag_testing import plain_env, plain_run, require_installed

require_installed("transformers", reason="corpus extra not installed: pip install -e '.[corpus]'")

PROGRAM = Path(__file__).parents[1] / "library" / "programs" / "hf_gpt2_train_varlen.py"


def _plain_run(script: Path) -> tuple[str, int]:
    proc = plain_run(script, TORCH_LOGS="recompiles")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr.count("Recompiling function")


def test_a_tensor_given_twice_is_marked_once_and_the_recompile_ends(tmp_path):
    from tdiag.analyzer import build
    from tdiag.analyzer.suggestions import apply_patch

    script = tmp_path / PROGRAM.name
    shutil.copy(PROGRAM, script)
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "rec", script.name],
                          cwd=tmp_path, env=plain_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    marks = [f.suggestion for f in build(str(tmp_path / "rec")).findings
             if f.code == "RCP001" and f.suggestion and f.suggestion.patch]
    assert marks, "no RCP001 patch for the growing sequence length"
    [mark] = marks
    added = [line for line in mark.patch.splitlines() if line.startswith("+") and "mark_dynamic" in line]
    assert added == ["+    torch._dynamo.mark_dynamic(ids, 1)"], mark.patch
    assert mark.title == "Mark `ids` dim 1 dynamic before the call", mark.title

    before_out, before_recompiles = _plain_run(script)
    assert before_recompiles >= 1  # the program shows the problem: a longer sequence compiles again
    patched = tmp_path / "patched" / script.name
    patched.parent.mkdir()
    patched.write_text(apply_patch(script.read_text(), mark.patch))
    out, recompiles = _plain_run(patched)
    assert out == before_out
    assert recompiles == 0
