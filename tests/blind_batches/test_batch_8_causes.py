"""The general causes blind batch 8's first score found (tests/blind_batch_8/SCORE.md), on its own programs, written
by someone who had not read tdiag's code; torch's own account of a plain run (truth/) is the oracle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_8"


def _record(program: str, tmp_path: Path, env: dict) -> Path:
    shutil.copy(BATCH / "programs" / f"{program}.py", tmp_path / f"{program}.py")
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "rec", f"{program}.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == int((BATCH / "truth" / program / "exit_status.txt").read_text()), proc.stderr
    assert proc.stdout == (BATCH / "truth" / program / "stdout.txt").read_text()  # the program's own output
    return tmp_path / "rec"


@pytest.mark.slow  # LLaMA's rotary embedding under Inductor (the session's compile cache)
def test_complex_tensors_are_one_fallback_cause_at_the_users_rotary_code(tmp_path, session_env):
    """Thirteen LOW001 findings, one per aten op and line (seven of them backward ops the user never wrote:
    `aten._conj`, `aten.clone`), were one cause: Inductor generates no code for complex tensors (torch's own
    warning on a cold compile says so). One finding, at the rotary code, with the real-arithmetic fix."""
    program = "llama_rope_complex_inductor"
    assert "does not support code generation for complex operators" in (
        BATCH / "truth" / program / "stderr.txt").read_text()
    findings = build(_record(program, tmp_path, session_env)).findings
    (low,) = [f for f in findings if f.code == "LOW001"]
    assert 21 <= low.line <= 25, low.line  # apply_rotary_emb's complex views and product
    assert "complex tensors" in low.message and "real tensors" in low.fix
    assert "aten.view_as_complex" in low.message and "aten._conj" in low.message
