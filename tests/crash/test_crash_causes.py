"""Known crash causes (analyzer/crash_causes.json) on real programs: each entry's program crashes plainly as the
entry says, tdiag's finding names the entry's cause and fix at the user's line, and the fix, applied, runs the program
to its end with eager's output (torch's plain runs are the oracle)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag.analyzer import build
from tdiag.analyzer.crash_causes import catalogue

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "blind_batch_7" / "programs" / "tvtensor_image_crash.py"


def _plain(path: Path, **env) -> subprocess.CompletedProcess:
    """torch's own run of the program from its folder, no tdiag (kept between test runs: tests/oracle_cache.py)."""
    from tdiag_testing import plain_run

    return plain_run(path, **env)


def test_every_entry_names_a_program_in_the_repository():
    for cause in catalogue():
        for path in re.findall(r"tests/[\w/]+\.py", cause.seen_on):
            assert (ROOT / path).exists(), cause.id
        re.compile(cause.match)


@pytest.mark.slow  # three plain runs and one recorded run of a small CNN
def test_a_tensor_subclass_input_gets_as_subclass_and_the_fix_runs(tmp_path, session_env):
    program = tmp_path / PROGRAM.name
    program.write_text(PROGRAM.read_text())
    plain = _plain(program)
    assert plain.returncode == 1 and "Multiple dispatch failed" in plain.stderr  # torch's own account
    eager = _plain(program, TORCH_COMPILE_DISABLE="1")
    assert eager.returncode == 0

    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", str(tmp_path / "rec"), program.name],
                      tmp_path, session_env, timeout=600)
    assert proc.returncode == plain.returncode and proc.stdout == plain.stdout  # the program's own exit and output
    (finding,) = [f for f in build(tmp_path / "rec").findings if f.code.startswith("CRS")]
    assert finding.line == 60 and "compiled(batch)" in program.read_text().splitlines()[59]
    assert "tensor subclass" in finding.message and "as_subclass(torch.Tensor)" in finding.fix

    # the fix as the finding words it, on the compiled call's argument: the program runs to its end as eager does
    fixed = program.read_text().replace("compiled(batch)", "compiled(batch.as_subclass(torch.Tensor))")
    program.write_text(fixed)
    after = _plain(program)
    assert after.returncode == 0, after.stderr
    assert after.stdout == eager.stdout


SKIPGRAM = ROOT / "tests" / "blind_batch_7" / "programs" / "skipgram_sparse_inductor.py"


@pytest.mark.slow  # two plain runs and one recorded run of word2vec under Inductor (cached compile)
def test_sparse_gradients_under_inductor_get_aot_eager_and_only_the_crash_is_reported(tmp_path, session_env):
    program = tmp_path / SKIPGRAM.name
    program.write_text(SKIPGRAM.read_text())
    plain = _plain(program)
    assert plain.returncode == 1 and "stride 0==" in plain.stderr  # torch's own account: Inductor's stride check

    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", str(tmp_path / "rec"), program.name],
                      tmp_path, session_env, timeout=600)
    assert proc.returncode == plain.returncode and proc.stdout == plain.stdout
    findings = build(tmp_path / "rec").findings
    # the crash only: no fallback-op, cache or compile-time note about compiled code that never completed a step
    assert [f.code for f in findings] == ["CRS099"]
    (finding,) = findings
    assert "sparse=True" in finding.message and 'backend="aot_eager"' in finding.fix

    # the fix as worded: the compile's backend. The program then runs to its end, as it does without compile
    source = program.read_text()
    assert source.count("torch.compile(") == 1
    program.write_text(re.sub(r"torch\.compile\(([^)]*)\)", r'torch.compile(\1, backend="aot_eager")', source))
    after = _plain(program)
    assert after.returncode == 0, after.stderr
    assert after.stdout == _plain(SKIPGRAM, TORCH_COMPILE_DISABLE="1").stdout
