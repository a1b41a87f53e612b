"""Issue 20's case: a module whose forward was compiled, called through a second compiled callable (``__call__``),
30 calls with an alternating Python float. torch's own counters from a run without tdiag are the oracle: under
``tdiag run`` (measuring) Dynamo must compile exactly the same frames and graphs, not tdiag's step wrapper too."""

from __future__ import annotations

from differential_testing import MODES, PLAIN, PROGRAMS, compare, load, run


def test_tdiag_run_compiles_what_python_compiles(tmp_path):
    program = load(PROGRAMS / "nested_forward_then_call.py")
    plain = run(program, PLAIN, False, tmp_path, tmp_path / "cache")
    measured = run(program, MODES["run"], False, tmp_path, tmp_path / "cache")
    (counters,) = plain.counters.values()
    # what torch 2.13 compiles for this shape without tdiag (guards the oracle itself: a program that stopped
    # compiling twice would make the comparison vacuous)
    assert counters["frames"]["total"] == 2 and counters["stats"]["unique_graphs"] == 2, counters
    assert compare(plain, measured).differences == []
