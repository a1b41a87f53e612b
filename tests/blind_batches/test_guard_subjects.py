"""Two kinds of guarded object the catalogue words by what they are (catalogue/guards.toml), on blind batch 5's
compiled eval step (tests/blind_batch_5/programs/confusion_tolist_eval.py, written by someone who had not read
tdiag's code): the step converts its predictions with `.tolist()` (a graph break at line 40) and counts them into a
global list of lists, `confusion[t][p] += 1` (line 41).

- The code after the break is compiled for each label the loop reads: torch guards the values carried across the
  break (`___stack1[0] == 3`). The break is the cause: RCP005 says so, at that break's line.
- The compiled code changes `confusion` itself, and torch guards its cells (`G['confusion'][0][0] == 34`): RCP002
  names the container and the statement that changes it, never "pass confusion[0][0] as a tensor".

The oracle is torch's own log of a plain run, kept with the batch (truth/confusion_tolist_eval/torch_logs.txt).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag.analyzer.mutated_container import changes, guarded_container

BATCH = Path(__file__).resolve().parents[1] / "blind_batch_5"
PROGRAM = BATCH / "programs" / "confusion_tolist_eval.py"


def test_a_guarded_item_of_a_container_the_statement_changes_is_told_apart_from_a_read():
    assert guarded_container("G['confusion'][0][0]") == "confusion"
    assert guarded_container("L['self'].history[2]") == "self.history"
    assert guarded_container("L['n']") is None and guarded_container("___stack1[0]") is None
    assert changes("confusion[t][p] += 1", "confusion")
    assert changes("self.history.append(loss)", "self.history")
    assert changes("for k in keys: stats[k] = 0", "stats")  # a compound statement's header and body
    assert not changes("total = confusion[t][p] + 1", "confusion")  # a read
    assert not changes("other[t] += 1", "confusion")
    assert not changes("if x.sum() > 0:", "confusion")


@pytest.mark.slow
def test_break_carried_values_and_a_changed_global_container_get_their_own_fix_lines(tmp_path, session_env):
    truth = (BATCH / "truth" / "confusion_tolist_eval" / "torch_logs.txt").read_text()
    assert "Graph break in user code at tests/blind_batch_5/programs/confusion_tolist_eval.py:40" in truth
    assert "G['confusion'][0][0] ==" in truth and "___stack1[0] == 3" in truth
    assert "Recompiling function torch_dynamo_resume_in_eval_step_at_40" in truth

    shutil.copy(PROGRAM, tmp_path / PROGRAM.name)
    run = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", PROGRAM.name], tmp_path, session_env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    lint = subprocess.run([sys.executable, "-m", "tdiag", "lint", "rec", "--format", "json"], cwd=tmp_path,
                          env=session_env, capture_output=True, text=True, timeout=300)
    findings = {f["code"]: f for f in json.loads(lint.stdout)}
    limit, value = findings["RCP005"]["fix"]["message"], findings["RCP002"]["fix"]["message"]
    assert limit.startswith(f"these recompiles follow the graph break at {PROGRAM.name}:40"), limit
    assert "___" not in limit and "failed" not in limit
    assert value.startswith("`confusion` is a Python container that the compiled code changes "
                            f"(`confusion[t][p] += 1` at {PROGRAM.name}:41)"), value
    assert "as a tensor" not in value and "<" not in value
