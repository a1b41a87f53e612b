"""A frame Dynamo skipped (BRK006) gets the patch of the break that made it skip, when that break is in the user's
own code: the rule that would own the break had Dynamo resumed (`BreakEvidence.inner_code`: BRK001 for a branch on
a tensor, BRK002 for a `.item()`) writes the patch on the break's line. Before, both programs here got only "remove
the break, or move the breaking code out of the loop" and no patch.

The oracle is torch's own trace of plain runs (no tdiag) of the program before and after `tdiag fix --verify
--apply`: before, torch logs the break and no graph; after, one graph, no break, no failed frame, and the same
printed values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ._project import make_project

pytestmark = pytest.mark.slow  # a record, a verify with two runs and two traced plain runs per case

PROGRAMS = Path(__file__).parent / "evidence_programs"

CASES = [
    # (program, the inner break's rule, the line the patch must add)
    ("loop_branch_skip.py", "BRK001", "+            x = torch.where(x.mean() > 0, torch.relu(x), x)"),
    ("loop_item_skip.py", "BRK002", "+torch._dynamo.config.capture_scalar_outputs = True"),
    ("loop_print_skip.py", "BRK004", "+torch._dynamo.config.reorderable_logging_functions.add(print)"),
]


@pytest.mark.parametrize("program, inner, added", CASES, ids=[c[0] for c in CASES])
def test_a_skipped_loop_frame_gets_its_breaks_patch_verified(program, inner, added, tmp_path, session_env):
    from oracle import account

    project = make_project(tmp_path, PROGRAMS / program, session_env)
    source = project.root / program
    before = account(source, session_env, tmp_path / "trace-before")
    assert before.returncode == 0 and before.breaks and before.graphs == 0, (before.breaks, before.graphs)

    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    (patch,) = [p for p in data["patches"] if "BRK006" in p["codes"]]
    assert added in patch["patch"].splitlines(), patch["patch"]
    result = data["verification"][0]
    assert rc == 0 and result["ok"] and result["stdout_identical"], result["problems"]
    assert "BRK006" in result["before"]["findings"] and "BRK006" in result["gone"]

    after = account(source, session_env, tmp_path / "trace-after")
    assert after.returncode == 0 and after.breaks == [] and after.failed_frames == 0, after.breaks
    assert after.graphs == 1
    assert after.stdout == before.stdout


def test_the_skip_names_the_inner_breaks_rule(tmp_path, session_env):
    """The finding keeps its code and words (Dynamo skipped the frame), and its evidence names the inner rule."""
    from tdiag.analyzer import build

    project = make_project(tmp_path, PROGRAMS / "loop_branch_skip.py", session_env)
    (skip,) = [f for f in build(str(project.record)).findings if f.code == "BRK006"]
    assert skip.evidence.inner_code == "BRK001" and skip.line == 16
    assert "made Dynamo skip forward" in skip.suggestion.why and "torch.where" in skip.suggestion.title


def test_torchs_hinted_setting_is_a_verified_patch(tmp_path, session_env):
    """A break rule without a patch kind of its own (BRK099 for torch's "Dynamic shape operator") gets the Dynamo
    setting torch's own hint names, as a candidate `--verify` keeps only where the break goes and the output stays.
    Oracle: torch's trace of plain runs before and after `--apply`."""
    from oracle import account

    program = "mask_index_hint.py"
    project = make_project(tmp_path, PROGRAMS / program, session_env)
    source = project.root / program
    before = account(source, session_env, tmp_path / "trace-before")
    assert before.returncode == 0 and before.breaks, before.breaks

    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    (patch,) = [p for p in data["patches"] if "BRK099" in p["codes"]]
    assert "+torch._dynamo.config.capture_dynamic_output_shape_ops = True" in patch["patch"].splitlines()
    result = data["verification"][0]
    assert rc == 0 and result["ok"] and result["stdout_identical"], result["problems"]

    after = account(source, session_env, tmp_path / "trace-after")
    assert after.returncode == 0 and after.breaks == [] and after.failed_frames == 0, after.breaks
    assert after.graphs == 1 and before.graphs > 1
    assert after.stdout == before.stdout


def test_a_conversion_torch_reports_as_item_gets_the_captured_scalar_verified(tmp_path, session_env):
    """`int(tensor)` is a Tensor.item break with no `.item()` on the line: BRK002's patch is the scalar captured in
    the graph (torch's own hint), kept by `--verify` only because the break goes and the output stays (oracle:
    torch's trace of plain runs before and after `--apply`)."""
    from oracle import account

    program = "int_conversion.py"
    project = make_project(tmp_path, PROGRAMS / program, session_env)
    source = project.root / program
    before = account(source, session_env, tmp_path / "trace-before")
    assert before.returncode == 0 and before.breaks, before.breaks

    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    (patch,) = [p for p in data["patches"] if "BRK002" in p["codes"]]
    assert "+torch._dynamo.config.capture_scalar_outputs = True" in patch["patch"].splitlines()
    result = data["verification"][0]
    assert rc == 0 and result["ok"] and result["stdout_identical"], result["problems"]
    assert [k["id"] for k in data["kept"]] == [patch["id"]]

    after = account(source, session_env, tmp_path / "trace-after")
    assert after.returncode == 0 and after.breaks == [] and after.graphs == 1, after.breaks
    assert after.stdout == before.stdout
