"""Each new patch kind, through the loop a user runs: record a real program, `tdiag fix --verify`, read the result.

The expectation is written by hand: the program's only problem is the one the patch targets, so after it the
run has no graph break at all, that finding is gone, and the printed values are identical.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ._project import make_project

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

SUGGESTION_PROGRAMS = Path(__file__).parents[1] / "suggestions" / "programs"

CASES = [
    # (program, rule code, a word of the patch title, a line the patch must add)
    ("elif_chain.py", "BRK001", "nested torch.where",
     "+    y = torch.where(s > 2.0, x * 0.5, torch.where(s < -2.0, x * 2.0, x + 1))  # large"),
    ("cond_branch.py", "BRK001", "torch.cond",
     "+    y = torch.cond(y.sum() > 4.0, then_branch, else_branch, (y,))  # large activations"),
    ("logger_inside.py", "BRK004", "ignore_logger_methods",
     "+torch._dynamo.config.ignore_logger_methods.add(logger.info)"),
    # one patch answers both breaks, the `.item()` (BRK002) and the print (BRK004): the lines land after the call
    ("loss_log.py", "BRK002", "after the call: move lines 15-16 of `train_step` after its call (line 23)", '+    print(f"loss {val:.4f}")'),
]


@pytest.mark.parametrize("program, code, title_word, added", CASES, ids=[c[0] for c in CASES])
def test_patch_kind_through_fix_verify(program, code, title_word, added, tmp_path, session_env):
    project = make_project(tmp_path, SUGGESTION_PROGRAMS / program, session_env)
    rc, data = project.fix_json("--verify", "--repeat", "1")
    patches = [p for p in data["patches"] if code in p["codes"]]
    assert len(patches) == 1, data["patches"]
    assert title_word in patches[0]["title"]
    assert added in patches[0]["patch"].splitlines()
    result = data["verification"][0]
    assert rc == 0 and result["ok"], result["problems"]
    assert result["before"]["findings"].get(code) and code not in result["after"]["findings"]
    assert result["before"]["graph_breaks"] >= 1 and result["after"]["graph_breaks"] == 0
    assert result["after"]["graphs"] == 1
    assert result["stdout_identical"] and result["after"]["exit_code"] == 0


def test_module_integer_attribute_becomes_dynamic(tmp_path, session_env):
    """Six calls, six values of `self.calls`: five recompiles before; with the switch, automatic dynamic makes the
    attribute symbolic at its first change, so exactly one recompile is left (an expert's count, not tdiag's)."""
    project = make_project(tmp_path, SUGGESTION_PROGRAMS / "module_counter.py", session_env)
    rc, data = project.fix_json("--verify", "--repeat", "1")
    (patch,) = [p for p in data["patches"] if "RCP002" in p["codes"]]
    assert "+torch._dynamo.config.allow_unspec_int_on_nn_module = True" in patch["patch"].splitlines()
    result = data["verification"][0]
    assert rc == 0 and result["ok"], result["problems"]
    assert result["before"]["recompiles"] == 5 and result["after"]["recompiles"] == 1
    assert result["before"]["findings"]["RCP002"] == 5 and result["after"]["findings"].get("RCP002", 0) <= 1
    assert result["stdout_identical"]


def test_optimizer_learning_rate_becomes_a_tensor(tmp_path, session_env):
    """StepLR changes lr after every step: the compiled Adam.step recompiles on it (then makes it dynamic); with a
    tensor lr the value is an input and the step compiles once. Weights printed after each step stay identical."""
    project = make_project(tmp_path, SUGGESTION_PROGRAMS / "lr_schedule.py", session_env)
    rc, data = project.fix_json("--verify", "--select", "RCP", "--repeat", "1")
    (patch,) = data["patches"]
    assert "+opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))" in patch["patch"].splitlines()
    result = data["verification"][0]
    assert rc == 0 and result["ok"], result["problems"]
    assert result["before"]["recompiles"] >= 1 and result["after"]["recompiles"] == 0
    assert "RCP002" in result["before"]["findings"] and "RCP002" not in result["after"]["findings"]
    assert result["stdout_identical"]


def test_lightning_step_reads_in_its_hooks(tmp_path, session_env):
    """A LightningModule compiled as Lightning's guide shows, whose training_step keeps its loss in a list with
    `.item()`, prints every other batch, and sees a smaller last batch: the `.item()` and the print get one patch
    (the lines move into `on_train_batch_end`, reading `outputs["loss"]`), the batch-size recompile gets the marks in
    `on_train_batch_start`. Together: one graph, no break, no recompile (torch's 10 graphs, 9 breaks and 9 recompiles
    before), the same printed losses."""
    project = make_project(tmp_path, SUGGESTION_PROGRAMS / "lightning_losses.py", session_env)
    rc, data = project.fix_json("--verify", "--repeat", "1", "--rounds", "1", "--select", "BRK,RCP")
    (moved,) = [p for p in data["patches"] if "BRK002" in p["codes"]]
    assert "BRK004" in moved["codes"]  # the print's finding got the identical patch: applied once
    assert '+        loss = outputs["loss"]' in moved["patch"].splitlines()
    (marks,) = [p for p in data["patches"] if "RCP001" in p["codes"]]
    assert marks["title"] == "Mark the batch's sizes dynamic in on_train_batch_start: `batch[0]` dim 0, `batch[1]` dim 0"
    result = data["verification"][0]
    assert rc == 0 and result["ok"] and result["kept"], result["problems"]
    assert (result["before"]["graphs"], result["before"]["graph_breaks"], result["before"]["recompiles"]) == (10, 9, 9)
    assert (result["after"]["graphs"], result["after"]["graph_breaks"], result["after"]["recompiles"]) == (1, 0, 0)
    assert result["stdout_identical"] and result["after"]["exit_code"] == 0


def test_lightning_self_log_that_stops_torch_moves_into_the_hook(tmp_path, session_env):
    """`self.log(...)` of the loss and a metric in a compiled training_step stops the program on torch 2.13 with
    lightning 2.6 (CRS008, torch's own internal error). The first candidate moves the lines into
    `on_train_batch_end`, the metric travelling in the returned dict: the program runs to its end and logs the values
    an uncompiled run logs (the oracle: plain runs without tdiag, the program with torch.compile disabled and the
    patched one; kept between test runs under the key of what they run)."""
    import shutil

    from oracle import run_plain
    from oracle_cache import kept_run

    program = SUGGESTION_PROGRAMS / "lightning_log.py"
    (tmp_path / "eager").mkdir()
    shutil.copy(program, tmp_path / "eager" / program.name)
    eager = kept_run(run_plain, tmp_path / "eager" / program.name, {**session_env, "TORCH_COMPILE_DISABLE": "1"},
                     tmp_path / "eager-trace")
    assert eager.returncode == 0, eager.stderr[-2000:]
    project = make_project(tmp_path, program, session_env)
    rc, data = project.fix_json("--verify", "--repeat", "1", "--rounds", "1")
    (crash,) = [p for p in data["patches"] if "CRS008" in p["codes"]]
    assert crash["title"] == ("Read `loss` in on_train_batch_end: move lines 20-21 of `training_step` into Lightning's "
                              "hook, which runs uncompiled after each step, returning `mae` beside the loss")
    result = data["verification"][0]
    assert rc == 0 and result["ok"] and result["completed"] and result["kept"], result["problems"]
    assert result["before"]["exit_code"] != 0 and result["after"]["exit_code"] == 0
    assert result["after"]["graph_breaks"] == 0 and result["after"]["graphs"] == 1
    project.fix("--apply")
    patched = kept_run(run_plain, project.root / program.name, session_env, tmp_path / "patched-trace")
    assert patched.returncode == 0, patched.stderr[-2000:]
    # "loss 0.8414 mae ...": the values an uncompiled run logs
    assert patched.stdout.splitlines()[-1] == eager.stdout.splitlines()[-1]
