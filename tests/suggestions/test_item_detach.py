"""BRK002's keep-a-tensor patch writes `.detach()` in place of `.item()`: `.item()` made the value a constant to
autograd, and a bare tensor in its place lets a gradient flow through it, which changes what the program trains.

examples/train.py (its default four epochs) is recorded for real under `tdiag run`; its BRK002 patch is applied and
the program run plainly, without tdiag, before and after: the same losses. The premise is checked the same way: the
bare tensor (the patch as it was before) prints different losses, so this test would catch the detach going away.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tdiag.analyzer import build
from tdiag.analyzer.suggestions import apply_patch
from tdiag_testing import plain_env, plain_run

EXAMPLE = Path(__file__).parents[2] / "examples" / "train.py"


def _plain(script: Path) -> str:
    proc = plain_run(script)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_the_kept_tensor_is_detached_and_the_training_is_unchanged(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "train.py")
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "rec", "train.py"],
                          cwd=tmp_path, env=plain_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [brk] = [f for f in build(tmp_path / "rec").findings if f.code == "BRK002"]
    patch = brk.suggestion.patch
    assert "+        scale = h.abs().max().detach()  # .item(): a graph break (BRK002)" in patch, patch
    original = EXAMPLE.read_text()

    def version(name: str, text: str) -> Path:
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.py").write_text(text)
        return tmp_path / name / "train.py"

    before = _plain(version("before", original))
    assert _plain(version("patched", apply_patch(original, patch))) == before
    bare = original.replace("scale = h.abs().max().item()", "scale = h.abs().max()")
    assert bare != original
    assert _plain(version("bare", bare)) != before  # the gradient through the scale changes the losses
