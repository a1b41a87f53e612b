"""A patch that changes only the program's random numbers is not refused for its output (tdiag/fixing/random_stream.py).

Inductor draws dropout masks with its own generator: the same program prints other losses compiled than eager, and
a patch that moves a dropout between eager and compiled code (or, on a GPU, between graphs) changes them too. The
verification re-runs such a patched copy with TDIAG_INDUCTOR_FALLBACK_RANDOM=1 (tracer/random_parity.py: Inductor's
``fallback_random``), and takes its refusal back when that run prints the program's own output.

The oracle is torch's own: the program run plainly, compiled and with TORCH_COMPILE_DISABLE=1, without tdiag.
Here the eager run stands for the unchanged program (its dropout eager) and the compiled run for the patched one.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from kept_tdiag import tdiag as kept_tdiag
from tdiag.analyzer import build
from tdiag.analyzer.output_noise import measure_baseline
from tdiag.tracer.random_parity import ENV

from tdiag.fixing.compare import compare
from tdiag.fixing.random_stream import OUTPUT_CHANGED, recheck
from tdiag.fixing.verify import RunResult

from ._project import PROGRAMS

pytestmark = pytest.mark.slow  # Inductor on the CPU: g++ per kernel

PROGRAM = PROGRAMS / "dropout_item_inductor.py"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, session_env):
    root = tmp_path_factory.mktemp("random-stream")
    (root / PROGRAM.name).write_text(PROGRAM.read_text())
    (root / "lower_lr.py").write_text(PROGRAM.read_text().replace("LR = 0.05", "LR = 0.02"))

    def plain(name: str, **env: str) -> str:
        proc = subprocess.run([sys.executable, name], cwd=root, env={**session_env, **env}, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout

    def traced(name: str, label: str, **env: str) -> tuple:
        record = root / label
        proc = kept_tdiag(["run", "--no-tui", "-q", "-o", str(record), name], root, {**session_env, **env}, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return build(record), RunResult(label, record, proc.returncode, proc.stdout, "", 0.0)

    return {
        "compiled": plain(PROGRAM.name),
        "eager": plain(PROGRAM.name, TORCH_COMPILE_DISABLE="1"),
        "traced": traced(PROGRAM.name, "traced"),
        "traced_eager_random": traced(PROGRAM.name, "eager-random", **{ENV: "1"}),
        "lower_lr": traced("lower_lr.py", "lower-lr"),
        "lower_lr_eager_random": traced("lower_lr.py", "lower-lr-eager-random", **{ENV: "1"}),
    }


def test_the_switch_makes_inductor_draw_eagers_random_numbers(runs):
    assert runs["compiled"] != runs["eager"]  # torch: Inductor's dropout masks are its own
    assert runs["traced"][1].stdout == runs["compiled"]  # tdiag run alone changes nothing
    assert runs["traced_eager_random"][1].stdout == runs["eager"]


def test_an_output_changed_only_in_its_random_numbers_is_the_same_output_and_a_real_change_is_not(runs):
    baseline = measure_baseline([runs["eager"]] * 2, [], 0, None, "not measured here")
    # the unchanged program's record: the eager-random run (its numbers are the baseline's)
    before = [(runs["traced_eager_random"][0], runs["traced_eager_random"][1])]

    patched = [runs["traced"]]
    c = compare("all patches", ["P"], before, patched, output=baseline)
    assert [p for p in c.problems if p.startswith(OUTPUT_CHANGED)], c.problems
    words = recheck(c, patched, baseline, lambda env: [runs["traced_eager_random"]], 0.0)
    assert words and "only the random stream" in words and not c.problems, (words, c.problems)

    changed = [runs["lower_lr"]]
    c = compare("all patches", ["P"], before, changed, output=baseline)
    assert recheck(c, changed, baseline, lambda env: [runs["lower_lr_eager_random"]], 0.0) is None
    assert c.problems and c.problems[0].startswith(OUTPUT_CHANGED) and "still differs" in c.output_judged
