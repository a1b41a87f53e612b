"""`tdiag fix --verify` in rounds, end to end on real programs: the next round is planned from the patched run's
record, a round that does not pay is dropped, and `--apply` writes every kept round with one undo.

The oracles are the programs themselves run without tdiag: after the fix, the program exits 0 and prints exactly
what the original prints when torch.compile may break the graph (its own code, fullgraph=True dropped), so the
rounds changed how it compiles, not what it computes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tdiag.fixing.compare import Metrics, judge_steps
from tdiag.analyzer.stdout_match import match

from ._project import PROGRAMS, make_project

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")


def _plain(project, program, **env):
    return subprocess.run([sys.executable, program], cwd=project.root, env={**project.env, **env},
                          capture_output=True, text=True, timeout=300)


@needs_git
def test_rounds_reach_the_cause_the_first_fix_uncovers_and_apply_undoes_them_at_once(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "masked_breaks.py", session_env)
    source = project.root / "masked_breaks.py"
    original = source.read_text()
    # torch.compile stopped at the first branch: the record knows only that one (the second is never traced)
    _, listing = project.fix_json()
    assert [p["id"] for p in listing["patches"]] == ["CRS001@masked_breaks.py:9"]

    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    assert rc == 0, data
    first, second = data["verification"]
    assert (first["round"], second["round"]) == (1, 2)
    assert first["kept"] and first["pays"] and first["before"]["exit_code"] == first["after"]["exit_code"] == 1
    assert any("no longer stops the program at masked_breaks.py:9" in i for i in first["improved"])
    assert second["kept"] and second["completed"] and second["after"]["exit_code"] == 0
    assert second["after"]["graphs"] == 1 and second["after"]["graph_breaks"] == 0
    assert [p["codes"] for p in data["kept"]] == [["CRS001"], ["CRS001"]]
    assert data["rounds"] == 2 and data["stopped"] == "no patch left"

    patched = source.read_text()
    assert patched.count("torch.where(") == 2 and "if x." not in patched
    assert len(list((project.record / "fix").glob("undo-*.json"))) == 1  # one backup for both rounds
    (project.root / "reference.py").write_text(original.replace(", fullgraph=True", ""))
    fixed, reference = _plain(project, "masked_breaks.py"), _plain(project, "reference.py")
    assert fixed.returncode == 0 and reference.returncode == 0, fixed.stderr[-2000:] + reference.stderr[-2000:]
    assert fixed.stdout == reference.stdout and len(fixed.stdout.splitlines()) == 12
    (project.root / "reference.py").unlink()

    undone = project.fix("--undo")
    assert undone.returncode == 0, undone.stderr
    assert source.read_text() == original and project.git("status", "--porcelain") == ""


@needs_git
def test_a_round_that_does_not_pay_is_dropped_and_nothing_is_applied(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "print_object.py", session_env)
    original = (project.root / "print_object.py").read_text()
    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    (only,) = data["verification"]
    assert "reorderable_logging_functions" in data["patches"][0]["title"]
    # torch replays prints of tensors and constants only: the break stays, the output too
    assert only["ok"] and not only["pays"] and only["kept"] is False
    assert only["before"]["graph_breaks"] == only["after"]["graph_breaks"] >= 1 and only["stdout_identical"]
    assert data["kept"] == [] and data["stopped"].startswith("round 1 did not pay")
    assert data["applied"] is None and "not applied" in data["not_applied"]
    assert rc == 0 and (project.root / "print_object.py").read_text() == original


@needs_git
def test_print_patch_keeps_the_output(tmp_path, session_env):
    """The print is replayed after the graph: the same text, and the function is one graph (torch's counts)."""
    project = make_project(tmp_path, PROGRAMS / "debug_print.py", session_env)
    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    (patch,) = data["patches"]
    assert "+torch._dynamo.config.reorderable_logging_functions.add(print)" in patch["patch"].splitlines()
    assert not any(line.startswith("-") and "print(" in line for line in patch["patch"].splitlines())
    (result,) = data["verification"]
    assert rc == 0 and result["pays"] and result["stdout_identical"]
    assert result["before"]["graph_breaks"] == 1 and result["after"]["graph_breaks"] == 0
    plain = _plain(project, "debug_print.py")
    assert plain.stdout == project.run_stdout and "debug: y computed" in plain.stdout


@needs_git
def test_no_print_patch_where_the_replay_could_print_a_changed_value(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "print_mutated.py", session_env)
    _, data = project.fix_json()
    assert not [p for p in data["patches"] if "BRK004" in p["codes"]]


def _metrics(*step_ms: float, steps: int = 20) -> Metrics:
    m = Metrics(graphs=2, graph_breaks=0, recompiles=0, eager_fallbacks=0, compile_time_s=1.0,
                step_time_s=None, steps_measured=steps, run_time_s=2.0, exit_code=0)
    m.step_times_s = [t / 1e3 for t in step_ms]
    m.runs = len(step_ms)
    return m


def test_one_noisy_window_a_side_is_never_a_timing_verdict():
    # the issue's case: 0.246 ms -> 0.526 ms on one window each
    how, faster, slower = judge_steps(_metrics(0.246), _metrics(0.526))
    assert faster is None and slower is None and how.startswith("not judged")


def test_a_timing_verdict_needs_ranges_that_do_not_overlap():
    assert judge_steps(_metrics(0.24, 0.55, 0.30), _metrics(0.52, 0.27, 0.33))[1:] == (None, None)
    _, faster, slower = judge_steps(_metrics(0.50, 0.52, 0.55), _metrics(0.24, 0.25, 0.27))
    assert faster and slower is None
    _, faster, slower = judge_steps(_metrics(0.24, 0.25, 0.27), _metrics(0.50, 0.52, 0.55))
    assert slower and faster is None
    # inside the tolerance beyond the other side's range: no verdict
    assert judge_steps(_metrics(0.250, 0.255), _metrics(0.260, 0.262))[1:] == (None, None)


def test_printed_floats_within_the_stated_tolerance():
    within = match("epoch 2: loss 1.1065\nepoch 3: loss 0.9000\n", "epoch 2: loss 1.1066\nepoch 3: loss 0.9000\n")
    assert within.same and not within.identical and within.number_differences == ["1.1065 -> 1.1066 (line 1)"]
    assert not match("loss 1.1065\n", "loss 1.1066\n", tolerance=0).same  # 0: exact
    assert not match("loss 1.1065\n", "loss 1.1067\n").same  # two units of the last digit
    assert not match("loss 0.1\n", "loss 0.2\n").same  # one unit, but 100% relatively
    assert not match("step 2\n", "step 3\n").same  # integers are exact
    assert not match("loss 1.1065\n", "loss: 1.1066\n").same  # the text around the numbers must match
    assert not match("a\n", "a\nb\n").same




@needs_git
def test_eager_baseline_is_measured_by_the_same_window(tmp_path, session_env):
    """--eager runs the final program with TORCH_COMPILE_DISABLE=1 under `tdiag run`, whose window still measures
    the step (the compiled callable runs eagerly); with one eager run the times are shown and not judged."""
    project = make_project(tmp_path, PROGRAMS / "steady_loop.py", session_env)
    _, listing = project.fix_json()
    assert listing["patches"] == []  # nothing to patch: the rounds stop at once, the eager comparison still runs
    _, data = project.fix_json("--verify", "--eager", "--repeat", "1")
    eager = data["eager"]
    assert eager is not None and eager["exit_code"] == 0, data
    # the eager side's one run; the compiled side is the unchanged program's one (eager printed the same output, so
    # its spread was never needed)
    assert len(eager["step_times_s"]) == 1 and len(eager["compiled_step_times_s"]) == 1
    assert eager["verdict"] == "no verdict" and "a verdict needs 2 a side" in eager["detail"]


@needs_git
def test_the_loss_print_of_the_issue_is_fixed_in_two_rounds_and_prints_the_same(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "loss_print.py", session_env)
    rc, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    held = [p for p in data["patches"] if p["held_back"]]
    assert [p["codes"] for p in held] == [["BRK004"]]  # overlaps the capture_scalar_outputs line in round 1
    assert rc == 0 and data["rounds"] == 2 and [p["codes"] for p in data["kept"]] == [["BRK002"], ["BRK004"]]
    last = data["verification"][-1]["after"]
    assert last["graphs"] == 1 and last["graph_breaks"] == 0
    assert all(c["stdout_identical"] for c in data["verification"])
    patched = _plain(project, "loss_print.py")
    assert patched.returncode == 0 and patched.stdout == project.run_stdout  # the prints are all still there
