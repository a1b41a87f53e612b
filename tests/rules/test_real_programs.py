"""The precision judgements on real `tdiag run`s, expectations written by hand from the program text and checked
against torch's own accounting (TORCH_TRACE, via tests/oracle.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tdiag.analyzer import build
from tdiag_testing import PROGRAMS, tdiag_cmd

TLPARSE_LOG = Path(__file__).parent.parent / "imports" / "data" / "tlparse_comp_failure.log"


def line_of(program: str, marker: str) -> int:
    lines = (PROGRAMS / program).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(marker))


def test_one_branch_and_a_changing_size_are_two_findings(recorded, torch_account):
    """A 3-line function with one data-dependent `if`, called with three batch sizes: the user sees two problems."""
    program = "branch_and_sizes.py"
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    a = build(run_dir)
    assert sorted((f.code, f.path, f.line) for f in a.findings) == [
        ("BRK001", program, line_of(program, "# BRANCH")),
        ("RCP001", program, line_of(program, "# CALL")),
    ]
    torch_says = torch_account(PROGRAMS / program)
    by_code = {f.code: f for f in a.findings}
    # nothing lost by folding: every break and every recompile torch logged is counted in the one finding
    assert by_code["BRK001"].occurrences == len(torch_says.breaks) == 2
    assert by_code["RCP001"].occurrences == len(torch_says.recompile_reasons) == 2
    assert by_code["RCP001"].evidence.automatic_dynamic  # DYN001's content is part of the size finding


def test_compiled_sequential_is_reported_on_the_users_call_and_named_after_the_module(recorded):
    program = "compiled_sequential.py"
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    a = build(run_dir)
    assert a.findings and all(f.path == program for f in a.findings), [(f.code, f.path) for f in a.findings]
    (rcp,) = [f for f in a.findings if f.code == "RCP001"]
    assert rcp.line == line_of(program, "# CALL")
    assert rcp.message.startswith("Sequential.forward recompiled")
    assert rcp.library_frame is not None and rcp.library_frame.path.startswith("<site-packages>/torch/")
    assert {f.code_name for f in a.frames} == {"Sequential.forward"}

    shown = subprocess.run(tdiag_cmd("lint", "--format", "json", "--select", "RCP001", "--show-library-sites",
                                     str(run_dir)), capture_output=True, text=True, timeout=120)
    (item,) = json.loads(shown.stdout)
    assert item["filename"].startswith("<site-packages>/torch/"), item
    assert f"{program}:{rcp.line}" in item["message"]


def test_a_backend_that_raises_is_a_failed_compile_finding(recorded, torch_account):
    program = "backend_raises.py"
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    torch_says = torch_account(PROGRAMS / program)
    assert torch_says.failed_frames == 1
    (f,) = build(run_dir).findings
    assert (f.code, f.path, f.line) == ("CMP003", program, line_of(program, "def fn(x):"))
    assert f.evidence.fail_type == "BackendCompilerFailed" and "broken backend" in f.message
    assert "eagerly" in f.message and f.severity == "error"


def test_tlparse_comp_failure_log_yields_the_failed_compile(tmp_path):
    """tlparse's own test input: one frame (fn, test_misc.py:10755) whose backend raised; it lists it as a failure."""
    out = tmp_path / "imported"
    proc = subprocess.run(tdiag_cmd("import", "-q", "-o", str(out), str(TLPARSE_LOG)), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    (f,) = build(out).findings
    assert f.code == "CMP003" and f.path.endswith("test/dynamo/test_misc.py") and f.line == 10755
    assert f.evidence.fail_type == "BackendCompilerFailed"
    assert "RuntimeError: broken backend" in f.message and "eagerly" in f.message


def test_a_list_growing_inside_the_compiled_forward_is_not_a_tensor_fix(recorded, torch_account):
    """`self.seen.append(...)` in a compiled forward: torch guards on `len(self.seen)` and recompiles every call (its
    own trace: 3 recompiles for 4 calls). Passing the length as a tensor would not stop that guard; the advice is to
    keep the container out of the compiled function."""
    program = "growing_list.py"
    run_dir, proc = recorded(program)
    assert proc.returncode == 0 and "calls 4" in proc.stdout, proc.stderr
    torch_says = torch_account(PROGRAMS / program)
    assert len(torch_says.recompile_reasons) == 3
    assert any("len(self.seen) == 1" in r for r in torch_says.recompile_reasons)
    (length,) = [f for f in build(run_dir).findings if f.code == "RCP002"]
    assert length.line == line_of(program, "# CALL")
    assert "keep the growing container out of the compiled function" in length.fix
    assert "as a tensor" not in length.fix and "tensor" not in length.suggestion.title
