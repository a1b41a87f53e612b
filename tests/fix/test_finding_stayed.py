"""`fix --verify` keeps no patch whose own finding stays, however the counts fell (issue 62 item 3).

numpy_clip_item.py reads a statistic out with `.item()` and clips it with NumPy on the same statement. torch breaks
at `.item()` and hints `capture_scalar_outputs = True`, which tdiag plans as the patch. With it, torch still breaks at
that statement (np.clip cannot take the captured scalar; the rule that words the break changes, the break does not),
while the recompiles on the float carried across the break, and the recompile limit they hit, are gone: the counts
fall, the finding stays. The oracle is torch's own log of the program run plainly, with and without the hint set by
hand; tdiag's verdict must then refuse the patch and name the finding that stayed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from ._project import PROGRAMS, make_project

PROGRAM = PROGRAMS / "numpy_clip_item.py"
HINT = "torch._dynamo.config.capture_scalar_outputs = True"


def _statement_line(text: str) -> int:
    """The 1-based line of the statement that reads `.item()` into np.clip."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if ".item()" in line and "np.clip(" in line)


def _with_hint(text: str) -> str:
    """torch's hint set by hand, right after `import torch` (one line inserted)."""
    lines = text.splitlines(keepends=True)
    at = lines.index("import torch\n") + 1
    return "".join(lines[:at] + [HINT + "\n"] + lines[at:])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")
def test_torchs_hint_that_only_lowers_the_counts_is_not_kept(tmp_path, session_env):
    original = PROGRAM.read_text()
    line = _statement_line(original)

    # (a) the oracle: torch's log of plain runs, without and with the hint
    plain = {}
    for name, text in (("original", original), ("hinted", _with_hint(original))):
        (tmp_path / f"{name}.py").write_text(text)
        plain[name] = subprocess.run([sys.executable, f"{name}.py"], cwd=tmp_path, capture_output=True, text=True,
                                     env={**session_env, "TORCH_LOGS": "graph_breaks,recompiles"}, timeout=300)
        assert plain[name].returncode == 0, plain[name].stderr[-2000:]
    before, after = plain["original"].stderr, plain["hinted"].stderr

    def breaks_at(stderr: str, name: str, at: int) -> bool:
        return re.search(rf"Graph break in user code at \S*{name}\.py:{at}\b", stderr) is not None

    assert breaks_at(before, "original", line) and "Tensor.item()` with config.capture_scalar_outputs=False" in before
    # the hint did its part (no `.item()` break any more) and the statement still breaks (one line lower: the hint)
    assert "capture_scalar_outputs=False" not in after
    assert breaks_at(after, "hinted", line + 1), after[-3000:]
    recompiles = {name: p.stderr.count("Recompiling function") for name, p in plain.items()}
    assert recompiles["hinted"] < recompiles["original"], recompiles
    assert "hit config.recompile_limit" in before and "hit config.recompile_limit" not in after
    assert plain["hinted"].stdout == plain["original"].stdout  # the hint changes no result

    # (b) tdiag plans torch's hint for that break, and `fix --verify` does not keep it
    project = make_project(tmp_path / "tdiag", PROGRAM, session_env)
    source = project.root / PROGRAM.name
    _, listing = project.fix_json()
    assert [(p["codes"], p["path"]) for p in listing["patches"]] == [(["BRK002"], PROGRAM.name)], listing["patches"]
    assert HINT in listing["patches"][0]["patch"]

    _, data = project.fix_json("--verify", "--apply", "--repeat", "1")
    stayed = f"BRK002 at {PROGRAM.name}:{line}"
    together = data["verification"][0]
    assert together["label"] == "all patches"
    assert any(words.startswith("fewer recompiles") for words in together["improved"]), together  # as torch says
    assert together["stayed"] == [stayed] and together["pays"] is False and together["kept"] is False, together
    assert data["kept"] == []
    outcome = data["round_outcomes"][0]
    assert outcome["kept"] == [] and "not a fix" in outcome["why"], outcome
    assert f"its finding stayed ({stayed} still reported there)" in outcome["why"], outcome
    assert source.read_text() == original  # --apply wrote nothing


BATCH3 = PROGRAMS.parent.parent / "blind_batch_3" / "programs"
SHAPE_HINT = "torch._dynamo.config.capture_dynamic_output_shape_ops = True"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")
def test_a_break_that_only_moves_to_the_next_line_is_not_a_fix(tmp_path, session_env):
    """Blind batch 3's class_balanced_loss.py: class weights from `torch.bincount` inside the compiled step. torch
    breaks at the bincount (a dynamic-shape operator) and hints capture_dynamic_output_shape_ops; with it, the break
    moves to the cross_entropy that uses the data-dependent size. The oracle: torch's plain-run log with the hint set
    by hand still breaks inside train_step, at another line. The first score kept the hint; now it is refused."""
    program = BATCH3 / "class_balanced_loss.py"
    original = program.read_text()
    bincount = next(i for i, text in enumerate(original.splitlines(), 1) if "torch.bincount(" in text)
    hinted = original.replace("import torch\n", f"import torch\n{SHAPE_HINT}\n", 1)
    logs = {}
    for name, text in (("original", original), ("hinted", hinted)):
        (tmp_path / f"{name}.py").write_text(text)
        run = subprocess.run([sys.executable, f"{name}.py"], cwd=tmp_path, capture_output=True, text=True,
                             env={**session_env, "TORCH_LOGS": "graph_breaks"}, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        logs[name] = sorted({int(n) for n in re.findall(rf"Graph break in user code at \S*{name}\.py:(\d+)",
                                                         run.stderr)})
    assert logs["original"] == [bincount]
    assert logs["hinted"] and bincount + 1 not in logs["hinted"]  # still a break, not at the (moved) bincount line

    project = make_project(tmp_path / "tdiag", program, session_env)
    # the break's patches only: a run that measured the step may add RUN001's (the riders test does the same)
    _, listing = project.fix_json("--select", "BRK")
    assert [p["codes"] for p in listing["patches"]] == [["BRK099"]] and SHAPE_HINT in listing["patches"][0]["patch"]
    _, data = project.fix_json("--select", "BRK", "--verify")
    together = data["verification"][0]
    assert together["stayed"] == [f"BRK099 at {program.name}:{bincount}"] and together["kept"] is False, together
    assert data["kept"] == [] and "not a fix" in data["round_outcomes"][0]["why"]


BLIND_PROTONET = PROGRAMS.parents[1] / "blind_batch_5" / "programs" / "protonet_unique_loss.py"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="the fix loop's git checks need git")
def test_torchs_hints_whose_break_moves_into_a_comprehension_of_the_same_function_are_not_kept(tmp_path,
                                                                                             session_env):
    """Blind batch 5's prototypical loss: torch hints capture_dynamic_output_shape_ops for `torch.unique` and
    capture_scalar_outputs for `.item()`. Set together, both breaks go, and the function then breaks inside its own
    list comprehensions (a frame Python and torch name `<listcomp>`): the counts fall, the function still breaks
    (the batch's checked NOT_FIX). The oracle: torch's log of the program with both hints set by hand."""
    original = BLIND_PROTONET.read_text()
    lines = original.splitlines()
    unique_at = next(i for i, line in enumerate(lines, 1) if "classes = torch.unique(target)" in line)
    item_at = next(i for i, line in enumerate(lines, 1) if ".item() - n_support" in line)
    end = next(i for i, line in enumerate(lines, 1) if i > unique_at and line.startswith("    return loss"))
    hints = ("torch._dynamo.config.capture_dynamic_output_shape_ops = True\n"
             "torch._dynamo.config.capture_scalar_outputs = True\n")
    at = original.index("import torch\n") + len("import torch\n")
    (tmp_path / "hinted.py").write_text(original[:at] + hints + original[at:])
    plain = subprocess.run([sys.executable, "hinted.py"], cwd=tmp_path, capture_output=True, text=True,
                           env={**session_env, "TORCH_LOGS": "graph_breaks"}, timeout=300)
    assert plain.returncode == 0, plain.stderr[-2000:]
    broke = {int(n) for n in re.findall(r"Graph break in user code at \S*hinted\.py:(\d+)", plain.stderr)}
    inside = {n - 2 for n in broke}  # the two hint lines shift the program down
    assert inside and all(unique_at < n <= end for n in inside), (broke, unique_at, end)  # still breaks, later on
    assert "torch.unique" not in plain.stderr and "capture_scalar_outputs=False" not in plain.stderr

    project = make_project(tmp_path / "tdiag", BLIND_PROTONET, session_env)
    _, data = project.fix_json("--verify", "--repeat", "1", "--no-parity", "--rounds", "1",
                               "--select", "BRK002,BRK099")
    together = data["verification"][0]
    assert together["label"] == "all patches" and together["kept"] is False, together
    assert sorted(together["stayed"]) == sorted([f"BRK099 at {BLIND_PROTONET.name}:{unique_at}",
                                                 f"BRK002 at {BLIND_PROTONET.name}:{item_at}"]), together
    assert not any(c["label"] == "all patches" and c["kept"] for c in data["verification"])
