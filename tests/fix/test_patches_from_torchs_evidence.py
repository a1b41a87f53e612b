"""Patches derived from what torch reported, on programs of shapes the other corpora do not have.

A frame Dynamo skipped (BRK006) gets the patch of the break that made it skip, when that break is in the user's own
code: the rule that would own the break had Dynamo resumed (`BreakEvidence.inner_code`: BRK001 for a branch on a
tensor, BRK002 for a `.item()`, BRK004 for a print) writes the patch on the break's line. Before, these programs got
only "remove the break, or move the breaking code out of the loop" and no patch. A break no patch kind covers gets
the Dynamo setting torch's own hint names, and a `Tensor.item` break with no `.item()` on the line the captured
scalar.

The oracle is torch's own trace of plain runs (no tdiag) of each program before and after `tdiag fix --verify
--apply`: after, one graph, no break, no failed frame, and the same printed values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ._project import make_project

pytestmark = pytest.mark.slow  # a record, a verify with two runs and two traced plain runs per case

PROGRAMS = Path(__file__).parent / "evidence_programs"

SKIPS = [
    # (program, the inner break's rule, the line the patch must add)
    ("loop_branch_skip.py", "BRK001", "+            x = torch.where(x.mean() > 0, torch.relu(x), x)"),
    ("loop_item_skip.py", "BRK002", "+torch._dynamo.config.capture_scalar_outputs = True"),
    ("loop_print_skip.py", "BRK004", "+torch._dynamo.config.reorderable_logging_functions.add(print)"),
]

SETTINGS = [
    # a boolean-mask selection not reduced at once (BRK007: torch's "Dynamic shape operator", no rewrite of its own
    # there) gets the Dynamo setting torch's own hint names
    ("mask_index_hint.py", "BRK007", "+torch._dynamo.config.capture_dynamic_output_shape_ops = True"),
    # `int(tensor)` is a Tensor.item break with no `.item()` on the line: BRK002's patch is the scalar captured
    ("int_conversion.py", "BRK002", "+torch._dynamo.config.capture_scalar_outputs = True"),
]


def _fixed(program: str, code: str, added: str, tmp_path: Path, env: dict[str, str]):
    """torch's own account of the program before and after `tdiag fix --verify --apply` (plain traced runs), and the
    fix's JSON; checks the patch of ``code`` adds ``added``, verified, kept and applied, the output unchanged."""
    from oracle import account

    project = make_project(tmp_path, PROGRAMS / program, env)
    source = project.root / program
    before = account(source, env, tmp_path / "trace-before")
    assert before.returncode == 0 and before.breaks, before.breaks
    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    (patch,) = [p for p in data["patches"] if code in p["codes"]]
    assert added in patch["patch"].splitlines(), patch["patch"]
    result = data["verification"][0]
    assert rc == 0 and result["ok"] and result["stdout_identical"], result["problems"]
    assert [k["id"] for k in data["kept"]] == [patch["id"]]
    after = account(source, env, tmp_path / "trace-after")
    assert after.returncode == 0 and after.breaks == [] and after.failed_frames == 0, after.breaks
    assert after.graphs == 1 and after.stdout == before.stdout
    return before, result


@pytest.mark.parametrize("program, inner, added", SKIPS, ids=[c[0] for c in SKIPS])
def test_a_skipped_loop_frame_gets_its_breaks_patch_verified(program, inner, added, tmp_path, session_env):
    before, result = _fixed(program, "BRK006", added, tmp_path, session_env)
    assert before.graphs == 0  # torch compiled nothing of the skipped frame
    assert "BRK006" in result["before"]["findings"] and "BRK006" in result["gone"]


@pytest.mark.parametrize("program, code, added", SETTINGS, ids=[c[0] for c in SETTINGS])
def test_torchs_own_hint_is_a_verified_patch(program, code, added, tmp_path, session_env):
    """Each a candidate `--verify` keeps only where the break goes and the output stays (`int()` of a boolean
    tensor still breaks under capture_scalar_outputs: verify drops it there)."""
    before, result = _fixed(program, code, added, tmp_path, session_env)
    assert before.graphs > 1 and code in result["gone"]


def test_the_skip_names_the_inner_breaks_rule(tmp_path, session_env):
    """The finding keeps its code and words (Dynamo skipped the frame), and its evidence names the inner rule."""
    from tdiag.analyzer import build

    project = make_project(tmp_path, PROGRAMS / "loop_branch_skip.py", session_env)
    (skip,) = [f for f in build(str(project.record)).findings if f.code == "BRK006"]
    assert skip.evidence.inner_code == "BRK001" and skip.line == 16
    assert "made Dynamo skip forward" in skip.suggestion.why and "torch.where" in skip.suggestion.title


def test_a_library_layers_self_loops_move_before_the_compiled_call(tmp_path, session_env):
    """torch_geometric's GCNConv adds the remaining self-loops with a boolean mask on every call (torch: "Dynamic
    shape operator", inside `add_remaining_self_loops` under `gcn_norm`), and in a layer loop Dynamo then skips the
    model's forward (BRK006). The catalogue's first candidate for that inner break: the layers built with
    `add_self_loops=False` and the loops added once before the compiled call (its next candidate, Dynamo's
    `capture_dynamic_output_shape_ops`, is not needed); the next round marks both sizes torch made dynamic at the
    one recompile left, in one patch. The layers are in a ModuleList and the graphs are `Data` objects: neither the
    shape of the ceiling program nor of the library corpus."""
    pytest.importorskip("torch_geometric")
    from oracle import account

    project = make_project(tmp_path, PROGRAMS / "pyg_gcn_layers.py", session_env)
    source = project.root / "pyg_gcn_layers.py"
    before = account(source, session_env, tmp_path / "trace-before")
    assert before.returncode == 0 and before.breaks and before.failed_frames, before.breaks
    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    assert rc == 0 and all(c["ok"] for c in data["verification"] if c["kept"])
    text = source.read_text()
    assert "GCNConv(a, b, add_self_loops=False)" in text
    assert "edge_index_looped, _ = add_remaining_self_loops(data.edge_index, num_nodes=data.x.size(0))" in text
    assert "out = model(data.x, edge_index_looped)" in text
    assert "torch._dynamo.maybe_mark_dynamic(data.x, 0)\n" in text and "maybe_mark_dynamic(edge_index_looped, 1)\n" in text
    assert "capture_dynamic_output_shape_ops" not in text
    assert len(data["round_outcomes"]) == 2  # the loops, then both marks at once
    after = account(source, session_env, tmp_path / "trace-after")
    assert after.returncode == 0 and after.breaks == [] and after.failed_frames == 0, after.breaks
    assert after.graphs == 1 and after.recompile_reasons == [] and after.stdout == before.stdout
