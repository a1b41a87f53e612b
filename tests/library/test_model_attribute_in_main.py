"""The loss_type patch (library cause `transformers-loss-type-warning`) for a program written in a `main()` whose
compiled model is an expression (`torch.compile(model.get_base_model())`, as tdiag's own peft patch leaves it): the
attribute is set on that expression, inside `main()`, before the compile; applied, torch counts no graph break.

The program prints torch's own graph-break count (torch._dynamo.utils.counters) at exit: the oracle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag_testing import plain_env, plain_run, require_installed

require_installed("transformers", "peft", reason="corpus extra not installed: pip install -e '.[corpus]'")

PROGRAM = Path(__file__).parent / "programs_in_main" / "peft_base_in_main.py"


def _breaks(stdout: str) -> int:
    line = next(line for line in stdout.splitlines() if line.startswith("graph breaks "))
    return int(line.split()[-1])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("in_main")
    shutil.copy(PROGRAM, root / PROGRAM.name)
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", PROGRAM.name], root, plain_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root, proc.stdout


def test_loss_type_is_set_on_the_compiled_expression_inside_main(recorded):
    from tdiag.analyzer import build
    from tdiag.analyzer.suggestions import apply_patch

    root, stdout = recorded
    assert _breaks(stdout) >= 1  # torch's count: the warning breaks
    line = next(n for n, text in enumerate(PROGRAM.read_text().splitlines(), 1) if "# EXPECT:" in text)
    brk = next(f for f in build(str(root / "rec")).findings if f.code == "BRK004" and f.line == line)
    patch = brk.suggestion.patch
    assert patch, brk.suggestion.patch_note
    assert '+    model.get_base_model().loss_type = "ForCausalLM"\n' in patch
    patched = apply_patch(PROGRAM.read_text(), patch)
    lines = patched.splitlines()
    set_at = lines.index('    model.get_base_model().loss_type = "ForCausalLM"')
    assert lines[set_at + 1].startswith("    compiled = torch.compile(")  # before the compile, inside main()

    script = root / "patched" / PROGRAM.name
    script.parent.mkdir()
    script.write_text(patched)
    proc = plain_run(script)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _breaks(proc.stdout) == 0
    assert proc.stdout.splitlines()[0] == stdout.splitlines()[0]  # the same loss


def test_a_compiled_function_is_not_taken_for_the_model():
    """`step = torch.compile(train_step)` compiles a function: `train_step.loss_type = ...` would fix nothing."""
    from tdiag.analyzer.suggestions.helpers.context import NoPatch
    from tdiag.analyzer.suggestions.helpers.syntax import SourceTree
    from tdiag.analyzer.suggestions.library_fix import _model_statement

    source = ("import torch\n\ndef main(model):\n    def train_step(ids):\n        return model(ids)\n"
              "    step = torch.compile(train_step)\n    step(1)\n")
    tree = SourceTree.parse("p.py", source)

    class Line:
        line, function, path = 7, "main", "p.py"

    with pytest.raises(NoPatch, match="compiles the function `train_step`"):
        _model_statement(tree, Line())


BERT_PROGRAM = Path(__file__).parent / "programs_in_main" / "bert_step_in_main.py"


def _frame_compiles(stdout: str) -> int:
    return int(next(line for line in stdout.splitlines() if line.startswith("frame compiles ")).split()[-1])


def test_problem_type_is_set_on_the_model_a_compiled_function_reads(tmp_path):
    """`step = torch.compile(train_step)`, the model read from main()'s scope: the failed guard names it
    (`model.config.problem_type is None`), so the attribute is set after the line that builds it; applied, torch
    compiles the step once."""
    from tdiag.analyzer import build
    from tdiag.analyzer.suggestions import apply_patch

    shutil.copy(BERT_PROGRAM, tmp_path / BERT_PROGRAM.name)
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", BERT_PROGRAM.name], tmp_path, plain_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _frame_compiles(proc.stdout) == 2  # torch's count: the second call compiles again
    line = next(n for n, text in enumerate(BERT_PROGRAM.read_text().splitlines(), 1) if "# EXPECT:" in text)
    rcp = next(f for f in build(str(tmp_path / "rec")).findings if f.code == "RCP006" and f.line == line)
    patch = rcp.suggestion.patch
    assert patch, rcp.suggestion.patch_note
    patched = apply_patch(BERT_PROGRAM.read_text(), patch)
    lines = patched.splitlines()
    set_at = lines.index('    model.config.problem_type = "single_label_classification"')
    assert lines[set_at - 1] == "    model = BertForSequenceClassification(config)"  # after it is built, in main()

    script = tmp_path / "patched" / BERT_PROGRAM.name
    script.parent.mkdir()
    script.write_text(patched)
    plain = plain_run(script)
    assert plain.returncode == 0, plain.stderr[-3000:]
    assert _frame_compiles(plain.stdout) == 1
    assert plain.stdout.splitlines()[0] == proc.stdout.splitlines()[0]  # the same loss
