"""A patch kept only because the set it came in paid is dropped when its own finding stays (tdiag/fixing/riders.py).

numpy_draw_backward.py breaks twice inside its compiled step: at `loss.backward()` (the patch moves it after the call)
and at a numpy draw read back with `float()` (torch's hint, `capture_scalar_outputs = True`, is the patch). Together
they pay (the backward's break goes), but the numpy break is still there: the flow runs the set without the hint
once, and keeps that. The oracle is torch's own log of the applied program run plainly: the backward's break is gone,
the numpy one is not, and the output is the program's own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tdiag.fixing.plan import Edit
from tdiag.fixing.riders import patched_line

from ._project import PROGRAMS, make_project


def test_a_line_keeps_its_text_through_edits_above_it_and_is_gone_when_replaced():
    insert_two_at_top = Edit(0, 0, ("import torch._dynamo", "torch._dynamo.config.x = True"))
    drop_line_5 = Edit(4, 5, ())
    replace_line_9_by_two = Edit(8, 9, ("a", "b"))
    edits = [insert_two_at_top, drop_line_5, replace_line_9_by_two]
    assert patched_line(3, edits) == 5  # only the insertion is above it
    assert patched_line(5, edits) is None  # removed
    assert patched_line(7, edits) == 8  # +2 -1
    assert patched_line(9, edits) is None  # replaced
    assert patched_line(12, edits) == 14  # +2 -1 +1
    assert patched_line(4, [Edit(3, 3, ("x",))]) == 5  # an insertion before the line itself moves it down


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")
def test_a_patch_whose_break_stays_is_not_applied_with_the_set_that_paid(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "numpy_draw_backward.py", session_env)
    source = project.root / "numpy_draw_backward.py"
    original = source.read_text()
    # the break patches only: a run that measured the optimizer's share adds RUN001's, a later round's matter
    _, listing = project.fix_json("--select", "BRK")
    assert sorted(p["codes"][0] for p in listing["patches"]) == ["BRK005", "BRK099"]

    rc, data = project.fix_json("--select", "BRK", "--verify", "--apply", "--repeat", "1")
    assert rc == 0, data
    together, without = data["verification"][:2]
    assert together["label"] == "all patches" and together["pays"] and together["kept"] is False
    assert without["label"] == "without the patches whose findings stayed" and without["kept"] is True
    assert [p["codes"] for p in data["kept"]] == [["BRK005"]]

    applied = source.read_text()
    assert "capture_scalar_outputs =" not in applied and "loss.backward()" not in applied.split("for i in")[0]
    plain = {}
    for name, text in (("original", original), ("applied", applied)):
        (project.root / f"{name}.py").write_text(text)
        plain[name] = subprocess.run([sys.executable, f"{name}.py"], cwd=project.root, capture_output=True, text=True,
                                     env={**project.env, "TORCH_LOGS": "graph_breaks"}, timeout=300)
        assert plain[name].returncode == 0, plain[name].stderr[-2000:]
    assert "Tensor.backward" in plain["original"].stderr and "Tensor.backward" not in plain["applied"].stderr
    assert "scale = float(np.random.uniform(0.9, 1.1))" in plain["applied"].stderr  # torch still breaks there
    assert plain["applied"].stdout == plain["original"].stdout and plain["original"].stdout.count("loss") == 6
