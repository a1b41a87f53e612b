"""The general causes blind batch 8's first score found (tests/blind_batch_8/SCORE.md), on its own programs, written
by someone who had not read tdiag's code; torch's own account of a plain run (truth/) is the oracle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag.analyzer import build

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_8"


def _record(program: str, tmp_path: Path, env: dict) -> Path:
    shutil.copy(BATCH / "programs" / f"{program}.py", tmp_path / f"{program}.py")
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", f"{program}.py"], tmp_path, env, timeout=600)
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


# program -> (the line of the compiled code that uses the object, the object, the catalogue entry)
DIVERGENCES = {
    "dqn_frame_stack_deque": (35, "self.frames", "deque-maxlen-append"),
    "kws_posterior_smoothing": (28, "self.history", "deque-maxlen-append"),
    "jitter_random_instance": (24, "self.rng", "random-instance-draws"),
}


@pytest.mark.slow
@pytest.mark.parametrize("program", sorted(DIVERGENCES))
def test_an_object_dynamo_models_differently_is_named_where_compiled_code_uses_it(program, tmp_path, session_env):
    """A deque(maxlen) that does not evict under Dynamo (a crash on dqn's channel count, a silent 6-score window on
    kws) and a random.Random instance whose draws are compiled in as constants (jitter): torch's plain runs show the
    difference from eager (or the crash), torch's logs say nothing of the cause."""
    line, holder, entry = DIVERGENCES[program]
    truth = BATCH / "truth" / program
    assert ((truth / "stdout.txt").read_text() != (truth / "stdout_eager.txt").read_text()
            or (truth / "exit_status.txt").read_text() != (truth / "exit_status_eager.txt").read_text())
    findings = build(_record(program, tmp_path, session_env)).findings
    (egr,) = [f for f in findings if f.code == "EGR003"]
    assert (egr.line, egr.evidence.holder, egr.evidence.entry) == (line, holder, entry)
    source = (BATCH / "programs" / f"{program}.py").read_text().splitlines()
    assert holder in source[line - 1]
    stopped = [f for f in findings if f.family == "CRS"]
    assert findings[len(stopped)] is egr  # right after what stopped the program, before any cost


@pytest.mark.slow
def test_the_deque_fix_as_worded_agrees_with_eager(tmp_path, session_env):
    program = "kws_posterior_smoothing"
    findings = build(_record(program, tmp_path, session_env)).findings
    (egr,) = [f for f in findings if f.code == "EGR003"]
    evict = egr.fix.split("`")[1]  # the statement the fix words: if len(...) == ....maxlen: ....popleft()
    lines = (BATCH / "programs" / f"{program}.py").read_text().splitlines(keepends=True)
    indent = lines[egr.line - 1][: len(lines[egr.line - 1]) - len(lines[egr.line - 1].lstrip())]
    lines.insert(egr.line - 1, indent + evict + "\n")
    (tmp_path / "fixed.py").write_text("".join(lines))
    runs = [subprocess.run([sys.executable, "fixed.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                           env={**session_env, **extra}) for extra in ({}, {"TORCH_COMPILE_DISABLE": "1"})]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert runs[0].stdout == runs[1].stdout == (BATCH / "truth" / program / "stdout_eager.txt").read_text()
