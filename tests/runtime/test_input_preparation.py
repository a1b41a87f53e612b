"""RUN001 counts only what the user can move (issue 62): the program's own input preparation is never "move it into
the compiled region", a clean program gets no RUN001, and a break or recompile ranks above it.

Real `tdiag run`s of the programs in programs/; what each program does (its breaks, recompiles, that it is clean) is
checked against torch's own account of a plain run (TORCH_TRACE, tests/oracle.py), never against tdiag's output.
The input preparation the window tells apart is asserted large enough that the old rule (every eager part counted)
would have fired on it: each test fails on a RUN001 that counts it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.analyzer.rules._runtime_window import ms_per_step
from tdiag.analyzer.rules.run001_eager_step_share import MIN_MS_PER_STEP, MIN_SHARE
from tdiag.analyzer.runtime import INPUT_PREPARATION
from tdiag_testing import run_tdiag

PROGRAMS = Path(__file__).parent / "programs"


def line_of(program: str, marker: str) -> int:
    lines = (PROGRAMS / program).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(marker))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, session_env):
    """``recorded(program)``: the Analysis of one `tdiag run` of the program, once per module."""
    runs = {}

    def get(program: str):
        if program not in runs:
            out = tmp_path_factory.mktemp(Path(program).stem) / "record"
            # one intra-op thread: on a shared 2-core machine a parallel op (the loss's backward) waits on a
            # descheduled OpenMP thread for milliseconds, which would decide which eager part is largest
            env = {**session_env, "OMP_NUM_THREADS": "1"}
            proc = run_tdiag(["run", "--no-tui", "-o", str(out), str(PROGRAMS / program)], env)
            assert proc.returncode == 0, proc.stderr
            runs[program] = build(out)
        return runs[program]

    return get


def would_have_fired(analysis) -> bool:
    """Whether the input preparation alone crosses RUN001's thresholds (share and time per step): a rule that counted
    it, as RUN001 did before, would fire on it."""
    runtime = analysis.summary.runtime
    assert runtime.status == "measured", runtime.reason
    preparing = runtime.eager_parts.get(INPUT_PREPARATION, 0.0)
    return preparing / runtime.window_s >= MIN_SHARE and ms_per_step(preparing, runtime) >= MIN_MS_PER_STEP


def test_a_clean_program_whose_inputs_are_made_each_step_has_no_run001(recorded, torch_account):
    program = "prepared_inputs_clean.py"
    torch_says = torch_account(PROGRAMS / program)
    assert torch_says.returncode == 0, torch_says.stderr
    assert torch_says.graphs == 1 and not torch_says.breaks and not torch_says.recompile_reasons
    analysis = recorded(program)
    runtime = analysis.summary.runtime
    # torch.randn, a stacked batch and the ops on them: what the old rule counted, enough to fire it
    assert would_have_fired(analysis), runtime.eager_parts
    assert max(runtime.eager_parts, key=runtime.eager_parts.get) == INPUT_PREPARATION
    assert not [f for f in analysis.findings if f.code == "RUN001"], [f.message for f in analysis.findings]


def test_an_eager_loss_and_optimizer_are_named_and_the_input_preparation_is_not(recorded, torch_account):
    program = "eager_loss_optimizer.py"
    torch_says = torch_account(PROGRAMS / program)
    assert torch_says.returncode == 0, torch_says.stderr
    assert not torch_says.breaks and not torch_says.recompile_reasons
    analysis = recorded(program)
    (run001,) = [f for f in analysis.findings if f.code == "RUN001"]
    assert (run001.path, run001.line) == (program, line_of(program, "# CALL"))
    parts = run001.evidence.parts_ms_per_step
    # the optimizer's loop over 82 tensors is the most of what can move; the loss and its eager backward beside it
    assert max(parts, key=parts.get) == "optimizer" and "loss" in parts
    assert INPUT_PREPARATION not in parts
    # the window did tell the randn/randint inputs apart: left out of the cost, said in the message
    preparing = analysis.summary.runtime.eager_parts[INPUT_PREPARATION]
    assert preparing > 0
    assert run001.cost.total_s == pytest.approx(sum(analysis.summary.runtime.eager_parts.values()) - preparing, rel=0.01)
    assert "input preparation" in run001.message and "is not counted" in run001.message
    # the CPU's optimizer fix; never the old advice to move eager ops (the inputs) into the compiled region
    assert "foreach=True" in run001.fix
    assert "move these eager ops" not in run001.fix


def test_a_break_ranks_first_and_the_input_preparation_makes_no_run001(recorded, torch_account):
    """Nine steps, a data-dependent branch in the compiled forward, inputs made with torch.randn each step: the shape
    on which RUN001 used to outrank the break."""
    program = "break_prepared_inputs.py"
    branch = line_of(program, "# BRANCH")
    torch_says = torch_account(PROGRAMS / program)
    assert torch_says.returncode == 0, torch_says.stderr
    assert [b["lines"][-1] for b in torch_says.breaks] == [(program, branch)]
    analysis = recorded(program)
    assert would_have_fired(analysis), analysis.summary.runtime.eager_parts
    first = analysis.findings[0]
    assert (first.family, first.path, first.line) == ("BRK", program, branch)
    assert first.cost.basis == "measured" and first.cost.total_s > 0
    assert not [f for f in analysis.findings if f.code == "RUN001"], [f.message for f in analysis.findings]


def test_a_recompile_ranks_above_run001(recorded, torch_account):
    """Per-batch padding recompiles the model once; the eager optimizer still makes a RUN001, ranked after it: a
    recompile's compile seconds do not compare with time per step."""
    program = "padded_batches_recompile.py"
    torch_says = torch_account(PROGRAMS / program)
    assert torch_says.returncode == 0, torch_says.stderr
    assert len(torch_says.recompile_reasons) == 1 and "size mismatch at index 1" in torch_says.recompile_reasons[0]
    analysis = recorded(program)
    codes = [f.code for f in analysis.findings]
    (recompile,) = [f for f in analysis.findings if f.family == "RCP"]
    assert (recompile.path, recompile.line) == (program, line_of(program, "# CALL"))
    (run001,) = [f for f in analysis.findings if f.code == "RUN001"]
    assert codes.index(recompile.code) < codes.index("RUN001"), codes
    assert run001.evidence.ranked_after == [f"{recompile.code} at {program}:{recompile.line}"]
    assert INPUT_PREPARATION not in run001.evidence.parts_ms_per_step
