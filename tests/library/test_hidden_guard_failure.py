"""A recompile with two causes, of which torch logs one: a BERT step called with a new sequence length fails the
size guard on `ids` and the guard `model.config.problem_type is None` (transformers set it on the first call), and
torch's recompile reason names only the size (it reports the first failing guard of an entry). tdiag reads the second
cause from the guards of the failed entry and of the compile that replaced it, reports it at the call with the
library's fix, and `fix` gets both patches from the first record (the flow needed a round more to find it).

Oracle: the program run plainly (no tdiag) prints torch's own count of frame compiles. The size mark alone leaves a
recompile (so the second cause is real); the mark and the problem_type line together leave one compile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag_testing import plain_env, plain_run, require_installed

require_installed("transformers", reason="corpus extra not installed: pip install -e '.[corpus]'")

PROGRAM = Path(__file__).parent / "programs_in_main" / "bert_varlen_step_in_main.py"


def _compiles(script: Path) -> tuple[str, int]:
    proc = plain_run(script)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(line for line in proc.stdout.splitlines() if line.startswith("frame compiles "))
    return proc.stdout.replace(line, ""), int(line.split()[-1])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("hidden_guard")
    shutil.copy(PROGRAM, root / PROGRAM.name)
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", PROGRAM.name], root, plain_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    from tdiag.analyzer import build

    return root, build(str(root / "rec"))


def test_the_guard_behind_the_logged_one_is_a_finding_at_the_call(recorded):
    _, analysis = recorded
    [recompile] = analysis.recompiles
    assert [f.kind for f in recompile.failures] == ["size"]  # torch logged the size only
    line = next(n for n, text in enumerate(PROGRAM.read_text().splitlines(), 1) if "loss = step(" in text)
    codes = {f.code: f for f in analysis.findings if f.line == line and f.code.startswith("RCP")}
    assert set(codes) == {"RCP001", "RCP006"}, [f.message for f in analysis.findings]
    hidden = codes["RCP006"]
    assert "model.config.problem_type is None" in hidden.message
    assert "failed behind the guard torch logged" in hidden.message
    assert "L['" not in hidden.message and "G['" not in hidden.message  # Dynamo's names never reach the user
    assert '+    model.config.problem_type = "single_label_classification"\n' in hidden.suggestion.patch


def test_both_patches_end_the_recompile_and_the_mark_alone_does_not(recorded, tmp_path):
    from tdiag.analyzer.suggestions import apply_patch

    root, analysis = recorded
    by_code = {f.code: f.suggestion.patch for f in analysis.findings if f.code in ("RCP001", "RCP006")}
    before_out, before = _compiles(root / PROGRAM.name)
    assert before == 2  # the program shows the problem: one recompile
    mark_only = tmp_path / "mark" / PROGRAM.name
    mark_only.parent.mkdir()
    mark_only.write_text(apply_patch(PROGRAM.read_text(), by_code["RCP001"]))
    assert _compiles(mark_only)[1] == 2  # the size was not the only cause
    both = tmp_path / "both" / PROGRAM.name
    both.parent.mkdir()
    both.write_text(apply_patch(apply_patch(PROGRAM.read_text(), by_code["RCP001"]), by_code["RCP006"]))
    out, compiles = _compiles(both)
    assert compiles == 1
    assert out == before_out
