"""The differential harness on a CI subset: aot_eager/eager programs on tdiag's risky paths, each compared with a
plain run on torch's own counters, stdout and exit code. The full set (Inductor, every mode, both nested settings)
is `python scripts/differential.py` (docs/differential.md)."""

from __future__ import annotations

import pytest
from differential_testing import differences

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

SUBSET = [
    # program, tdiag modes, nested_graph_breaks
    ("nested_model_in_train_step", ["run", "capture", "deep"], False),  # nested compiles, backward, capture API
    ("hooks_before_after_compile", ["run"], False),  # guard failures from hooks added after compile
    ("dataloader_fork_workers", ["run"], False),  # forked children inherit the capture
    ("worker_thread", ["run"], False),  # compiled calls off the main thread
    ("mp_spawn_children", ["run", "capture"], False),  # spawn children re-import the program
    ("pytest_compiled_tests", ["pytest-plugin", "run"], False),  # the plugin; `tdiag run -m pytest`
    ("compiler_disable_helpers", ["run"], True),  # breaks in nested frames with nested_graph_breaks on
    ("set_stance", ["no-profile"], False),  # stances and a refused recompile
    ("ddp_gloo", ["run"], False),  # `tdiag run --nproc-per-node 2` against torchrun
]


@pytest.mark.parametrize(("program", "modes", "nested"), SUBSET, ids=[s[0] for s in SUBSET])
def test_tdiag_agrees_with_torch(program, modes, nested, tmp_path):
    assert differences(program, modes, tmp_path, tmp_path / "cache", nested=nested) == {m: [] for m in modes}
