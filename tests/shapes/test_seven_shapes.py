"""Issue 44's seven shapes, each on a small real program written as its library's docs show it.

The expectations were written from torch's own trace of a plain run (TORCH_LOGS=graph_breaks,recompiles; the oracle
below re-reads it from TORCH_TRACE) before tdiag's output was looked at:

1. rl_random.py: torch breaks at line 14 with "Attempted to call function marked as skipped", debug context
   `module: <unknown module>, qualname: Random.random, skip reason: cannot determine source file` (a C function).
   ckpt_seq.py: at line 12, `module: torch.utils.checkpoint, qualname: checkpoint_sequential, skip reason: file
   matches MOD_SKIPLIST`. The finding names the function, its file and why; the fix is the torch-native equivalent.
2. metric_recompile.py: 5 recompiles of eval_step, guard `G['val_metric']._update_count == N`, changed by
   `self._update_count += 1` in torchmetrics/metric.py. The finding names `val_metric`, torchmetrics and the change,
   and no fix is phrased from the guard (`G['...']`, "as a tensor").
3. ema_decay.py: 8 recompiles, then the recompile limit (a failed frame compile in torch's metrics): the limit
   ranks first, and no compile-only finding is shown per step.
4. crash_limit.py: the program stops (exit 1, Unsupported under fullgraph=True): no eager fallback is counted and no
   finding says the frame ran eagerly instead.
5. ema_decay.py: the float `decay` keeps recompiling after automatic dynamic (torch: `(1.0 + ((-1)*decay)) == ...`):
   the tensor patch is offered as a candidate.
6. eval_nograd.py: one recompile, `GLOBAL_STATE changed: grad_mode`: information, not a warning.
7. stdout with timings: tests/fix/test_stdout_timings.py, and the Trainer program that prints its metrics in
   tests/library_corpus (test_trainer_loss_warning_patch_verified): its logger-knob patch verifies and is kept.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from kept_tdiag import tdiag as kept_tdiag
from oracle import account

# seven real `tdiag run`s and as many plain traced runs: scripts/test runs these in the slow step
pytestmark = pytest.mark.slow

PROGRAMS = Path(__file__).parent / "programs"
DYNAMO_NAMES = re.compile(r"\b[LG]\['|___stack")


class _Runs(dict):
    """(analysis, tdiag's process, torch's account of a plain run, folder) per program, run when first asked for."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, name):
        self[name] = self.make(name)
        return self[name]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, session_env):
    from tdiag.analyzer import build

    def make(name):
        root = tmp_path_factory.mktemp(Path(name).stem)
        shutil.copy(PROGRAMS / name, root / name)
        proc = kept_tdiag(["run", "--no-tui", "-q", "-o", "rec", name], root, session_env, timeout=600)
        torch_account = account(root / name, session_env, root / "trace")
        return build(root / "rec"), proc, torch_account, root

    return _Runs(make)


@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.py")))
def test_no_output_shows_a_name_only_dynamo_holds(runs, name):
    """issue 62: every output format (tests/internal_names.py) of the module's real run of each program; the runs
    are quiet (-q), so the summary is rendered from the Analysis as `tdiag run` renders it."""
    from internal_names import internal_names

    analysis, _, _, root = runs[name]
    assert internal_names(analysis, root / "rec") == []


def _words(finding) -> str:
    return f"{finding.message} {finding.fix}"


@pytest.mark.parametrize("name,line,callee,native,kind", [
    ("rl_random.py", 14, "random.random", "torch.rand(())", "c-function"),
    ("ckpt_seq.py", 12, "torch.utils.checkpoint.checkpoint_sequential", "use_reentrant=False", "skipfiles"),
])
def test_skipped_call_is_named_with_its_reason_and_native_fix(runs, name, line, callee, native, kind):
    analysis, _, torch_account, _ = runs[name]
    assert any(b["gb_id"] == "GB0007" and (name, line) in b["lines"] for b in torch_account.breaks)
    brk = next(f for f in analysis.findings if f.code == "BRK005" and f.line == line)
    skipped = brk.evidence.skipped_call()
    assert skipped is not None and skipped.name == callee and skipped.kind == kind
    assert f"`{callee}`" in brk.message and native in brk.fix
    assert "allow_in_graph" not in brk.fix  # not the one template for every skipped call


def test_library_state_guard_named_as_the_user_holds_it(runs):
    analysis, _, torch_account, _ = runs["metric_recompile.py"]
    assert len(torch_account.recompile_reasons) == 5
    assert all("_update_count" in r for r in torch_account.recompile_reasons)
    rcp = next(f for f in analysis.findings if f.family == "RCP")
    assert rcp.occurrences == 5
    assert "val_metric._update_count" in rcp.message and "torchmetrics" in rcp.fix
    assert "as a tensor" not in rcp.fix
    assert "`val_metric.update(pred, y)` (line 13)" in rcp.suggestion.title
    assert "self._update_count += 1" in rcp.suggestion.why
    assert not DYNAMO_NAMES.search(_words(rcp)), _words(rcp)


def test_recompile_limit_ranks_first_and_compile_is_never_per_step(runs):
    analysis, _, torch_account, _ = runs["ema_decay.py"]
    assert len(torch_account.recompile_reasons) == 8 and torch_account.failed_frames == 1  # the limit: torch gives up
    assert analysis.findings[0].code == "RCP005"
    from tdiag.analyzer.cost import cost_model

    compile_costed = [f for f in analysis.findings if cost_model(f) == "compile" and f.cost is not None]
    assert compile_costed
    for f in compile_costed:  # compile seconds, paid once: never per step
        assert f.cost.per_call_ms is None and f.cost.basis in ("compile", "none"), (f.code, f.cost)
    # the function the limit left eager is costed by its eager time (stack samples), when the window saw it
    assert analysis.findings[0].cost is None or analysis.findings[0].cost.basis in ("measured", "none", "compile")


def test_float_recompiling_after_automatic_dynamic_gets_the_tensor_candidate(runs):
    analysis, _, _, _ = runs["ema_decay.py"]
    rcp = next(f for f in analysis.findings if f.code == "RCP002")
    assert "decay" in rcp.message and not DYNAMO_NAMES.search(_words(rcp)), _words(rcp)
    assert rcp.suggestion.patch and "torch.tensor(decay)" in rcp.suggestion.patch
    assert "--verify" in (rcp.suggestion.patch_note or "")


def test_crash_is_not_contradicted(runs):
    analysis, proc, torch_account, _ = runs["crash_limit.py"]
    assert torch_account.returncode == 1 and proc.returncode == 1
    assert analysis.findings[0].family == "CRS"
    assert analysis.summary.eager_fallbacks == 0
    assert not any(f.code == "CMP003" or "eagerly instead" in f.message for f in analysis.findings)


def test_eval_under_no_grad_recompile_is_information(runs):
    analysis, _, torch_account, _ = runs["eval_nograd.py"]
    assert len(torch_account.recompile_reasons) == 1 and "grad_mode" in torch_account.recompile_reasons[0]
    rcp = next(f for f in analysis.findings if f.code == "RCP003")
    assert rcp.severity == "info" and rcp.fix.startswith("nothing to fix")
