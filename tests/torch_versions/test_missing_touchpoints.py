"""Every private touchpoint a torch lacks is "capture incomplete" with what was lost: never a crash, never silence.

tests/torch_versions/remove_touchpoints.py takes each touchpoint of tracer/torch_compat.py out of the real torch,
one at a time, and records a real Inductor compile with ``tdiag.capture()``. The oracle is the list itself: each
removal must be named in the record's capture problems, and nothing may be named with nothing removed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build, capture_health
from tdiag.tracer.torch_compat import STAGES, TOUCHPOINTS, stage_of

HERE = Path(__file__).parent
ATTACHED = [p for p in TOUCHPOINTS if stage_of(p) in ("start", "dynamo", "inductor", "deep")]
# checked only where their module was loaded (CUDA graphs, DDP; on this CPU machine never), or losing nothing
NOT_REMOVED_HERE = {
    "torch._inductor.cudagraph_trees": "loaded", "torch._dynamo.backends.distributed": "loaded",
    "torch._C._dynamo.eval_frame.set_code_exec_strategy": "none", "torch._dynamo.backends.debugging": "none",
}


@pytest.fixture(scope="module")
def removals(tmp_path_factory, session_env) -> tuple[Path, dict[str, list[str]]]:
    out = tmp_path_factory.mktemp("touchpoints")
    proc = subprocess.run([sys.executable, str(HERE / "remove_touchpoints.py"), str(out)], env=session_env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, json.loads(proc.stdout.strip().splitlines()[-1])


def test_nothing_is_missing_on_this_torch(removals):
    assert removals[1]["(nothing removed)"] == []


@pytest.mark.parametrize("point", ATTACHED, ids=lambda p: p.name)
def test_a_missing_touchpoint_is_a_capture_problem(point, removals):
    said = removals[1][point.name]
    if point.name == "torch.__trace":  # the logger under another name: torch's events reach no handler of tdiag's
        assert {"torch.__trace", "structured trace"} <= set(said)
    else:
        assert point.name in said


def test_the_problem_says_what_was_lost_and_lint_exits_2(removals, session_env):
    out, _ = removals
    index = TOUCHPOINTS.index(next(p for p in TOUCHPOINTS if p.name == "torch._dynamo.callback.callback_handler"))
    run = out / f"run{index}"
    problems = build(run).run.capture_problems
    text = capture_health.lines(problems)
    assert text[0].startswith("capture incomplete on torch 2.")
    assert any(line.startswith("torch._dynamo.callback.callback_handler is missing in torch 2.") and
               "no live progress" in line for line in text[1:]), text
    lint = subprocess.run([sys.executable, "-m", "tdiag", "lint", str(run)], env=session_env, capture_output=True,
                          text=True, timeout=300)
    assert lint.returncode == 2 and "capture incomplete" in lint.stderr


def test_every_touchpoint_is_checked_somewhere():
    assert {p.name: stage_of(p) for p in TOUCHPOINTS if p not in ATTACHED} == NOT_REMOVED_HERE
    assert {stage_of(p) for p in TOUCHPOINTS} <= set(STAGES)
