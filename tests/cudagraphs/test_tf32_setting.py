"""WRN001's patch for Inductor's TF32 warning: `torch.set_float32_matmul_precision("high")` after the imports,
planned as a step-time lever (it changes no count, so `tdiag fix --verify` judges it by the step time, in the round
after the structural patches). The statement is data: torch_warnings.json's entry names it.

torch issues the warning only on a GPU with TF32 tensor cores (compile_fx.py's ``_warn_tf32_disabled``), so the
record is shaped as tdiag's capture writes it there (tests/gpu_records.py), the warning's text read from the
installed torch's own source; on a GPU machine the last test runs the real program.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch
from gpu_records import start_record
from tdiag.analyzer import build
from tdiag.analyzer.suggestions import apply_patch
from tdiag.fixing.plan import is_step_time, plan_patches

TRAIN = """import torch

model = torch.nn.Linear(64, 64)


@torch.compile
def step(x):
    return model(x).relu().sum()


for i in range(10):
    step(torch.ones(8, 64))
"""


def tf32_warning_text() -> str:
    """Inductor's warning as the installed torch words it (compile_fx.py's string literals, joined as Python does)."""
    source = Path(torch.__file__).parent / "_inductor" / "compile_fx.py"
    texts = [n.value for n in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
             if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return next(t for t in texts if t.startswith("TensorFloat32 tensor cores"))


def _record(tmp_path, text: str):
    w, path = start_record(tmp_path, text, line=7)
    torch_file = str(Path(torch.__file__).parent / "_inductor" / "compile_fx.py")
    w.write({"type": "torch_warning", "t": 0.0, "message": tf32_warning_text(), "category": "UserWarning",
             "module": "torch._inductor.compile_fx", "filename": torch_file, "lineno": 321, "compile_id": "0/0",
             "traced_stack": [[path, 8, "step"]], "stack": [[path, 12, "<module>"]],
             "user_frame": {"filename": path, "line": 8, "name": "step"}})
    w.write({"type": "exit", "code": 0, "reason": "exit", "duration_s": 1.0})
    w.close()
    return build(tmp_path)


def test_the_tf32_warning_gets_the_precision_setting_as_a_step_time_patch(tmp_path):
    analysis = _record(tmp_path, TRAIN)
    (finding,) = [f for f in analysis.findings if f.code == "WRN001"]
    assert "TensorFloat32" in finding.message and finding.line == 8
    suggestion = finding.suggestion
    assert suggestion.patch, suggestion.patch_note
    patched = apply_patch(TRAIN, suggestion.patch)
    assert patched.startswith('import torch\ntorch.set_float32_matmul_precision("high")\n')
    assert patched.replace('torch.set_float32_matmul_precision("high")\n', "", 1) == TRAIN  # nothing else changed
    assert suggestion.step_time and "--output-tolerance" in suggestion.why
    (planned,) = [p for p in plan_patches(analysis) if "WRN001" in p.codes]
    assert is_step_time(planned)  # measured after the structural round, by the step time


@pytest.mark.parametrize("setting", ['torch.set_float32_matmul_precision("medium")',
                                     "torch.backends.cuda.matmul.allow_tf32 = False",
                                     'torch.backends.cuda.matmul.fp32_precision = "ieee"'])
def test_a_file_that_sets_matmul_precision_itself_gets_no_patch(tmp_path, setting):
    text = TRAIN.replace("import torch\n", f"import torch\n{setting}\n", 1)
    (finding,) = [f for f in _record(tmp_path, text).findings if f.code == "WRN001"]
    assert finding.suggestion.patch is None
    assert "already sets" in (finding.suggestion.patch_note or "")


def test_words_only_entries_keep_the_rules_words(tmp_path):
    """An entry without a statement (the lru_cache wrapper) is worded as before: no patch, no note about one."""
    from tdiag.analyzer.torch_warnings import catalogue

    assert [e.id for e in catalogue() if e.patch] == ["tf32-not-enabled"]
    for entry in catalogue():
        if entry.patch:
            assert entry.patch["kind"] == "torch-setting" and entry.patch["judged_by"] in ("step-time", "counts")
            ast.parse(entry.patch["statement"].format(torch="torch"))


@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.get_device_capability() < (8, 0),
                    reason="torch warns about TF32 only on a GPU with TF32 tensor cores")
def test_on_a_gpu_the_real_warning_gets_the_patch(tmp_path):
    import subprocess
    import sys

    program = tmp_path / "train.py"
    program.write_text(TRAIN.replace("torch.nn.Linear(64, 64)", 'torch.nn.Linear(64, 64, device="cuda")')
                       .replace("torch.ones(8, 64)", 'torch.ones(8, 64, device="cuda")'))
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(tmp_path / "rec"),
                           "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (finding,) = [f for f in build(tmp_path / "rec").findings if f.code == "WRN001"]
    assert finding.path == "train.py" and finding.suggestion.patch, finding.suggestion.patch_note
