"""The harness's verdicts: a frames difference is explained only by frames torch also runs under TORCH_TRACE."""

from __future__ import annotations

import gloo_exit
import pytest
from differential_testing import Outcome, compare


def outcome(mode: str, codes: list[str], frames: int, stdout: str = "ok\n", graphs: int = 2) -> Outcome:
    counters = {"frames": {"total": frames, "ok": frames}, "stats": {"unique_graphs": graphs, "calls_captured": 4},
                "graph_break": {}, "recompiles": 0, "resumes": 0, "nested_graph_breaks": False, "codes": codes}
    return Outcome("prog", mode, False, 0, stdout, {"MainProcess": counters})


PLAIN = outcome("plain", ["prog.py:f", "torch/x.py:g"], 2)
TRACED = outcome("plain-traced", ["prog.py:f", "torch/x.py:g", "torch/_logging/_internal.py:<lambda>"], 3)


def test_frames_of_torch_structured_trace_are_explained():
    tdiag = outcome("run", ["prog.py:f", "torch/x.py:g", "torch/_logging/_internal.py:<lambda>"], 3)
    assert compare(PLAIN, tdiag).needs_traced
    verdict = compare(PLAIN, tdiag, TRACED)
    assert verdict.identical and len(verdict.explained) == 1


def test_a_frame_of_tdiag_is_a_difference():
    tdiag = outcome("run", ["prog.py:f", "torch/x.py:g", "tracer/runtime_window.py:compiled_step"], 3)
    verdict = compare(PLAIN, tdiag, TRACED)
    assert not verdict.identical and "compiled_step" in verdict.differences[0]


def test_a_frame_dynamo_no_longer_sees_is_a_difference():
    tdiag = outcome("run", ["prog.py:f", "torch/_logging/_internal.py:<lambda>"], 2)
    tdiag.counters["MainProcess"]["frames"] = {"total": 3, "ok": 3}
    verdict = compare(PLAIN, tdiag, TRACED)
    assert not verdict.identical and "fewer frames" in verdict.differences[0]


def test_graphs_and_stdout_are_never_explained():
    tdiag = outcome("run", ["prog.py:f", "torch/x.py:g"], 2, stdout="ok\nextra\n", graphs=3)
    assert len(compare(PLAIN, tdiag, TRACED).differences) == 2


def failed(outcome_: Outcome, exit_abort: bool = True, processes: tuple[str, ...] = ("MainProcess",)) -> Outcome:
    outcome_.exit_code, outcome_.exit_abort = 1, exit_abort
    outcome_.counters = {p: outcome_.counters["MainProcess"] for p in processes}
    return outcome_


def test_torchs_exit_abort_after_the_programs_ended_is_explained_on_either_side():
    for plain_failed in (False, True):
        plain = outcome("plain", ["prog.py:f", "torch/x.py:g"], 2)
        tdiag = outcome("run", ["prog.py:f", "torch/x.py:g"], 2)
        failed(plain if plain_failed else tdiag)
        verdict = compare(plain, tdiag, TRACED)
        assert verdict.identical and "gloo exit abort" in verdict.explained[0]


def test_any_other_exit_difference_is_counted():
    other_failure = failed(outcome("run", ["prog.py:f", "torch/x.py:g"], 2), exit_abort=False)
    assert not compare(PLAIN, other_failure, TRACED).identical
    # a process that never wrote its counters did not end its program: the abort may have cut it short
    cut_short = failed(outcome("run", ["prog.py:f", "torch/x.py:g"], 2), processes=())
    assert not compare(PLAIN, cut_short, TRACED).identical


def test_a_plain_job_that_hit_the_exit_abort_finished_with_a_warning_and_any_other_failure_did_not():
    plain = failed(outcome("plain", ["prog.py:f", "torch/x.py:g"], 2))
    with pytest.warns(gloo_exit.TorchGlooExitAbort):
        gloo_exit.assert_plain_job_finished(plain, compare(plain, PLAIN, TRACED), 1)
    crashed = failed(outcome("plain", ["prog.py:f", "torch/x.py:g"], 2), exit_abort=False)
    with pytest.raises(AssertionError):
        gloo_exit.assert_plain_job_finished(crashed, compare(crashed, PLAIN, TRACED), 1)
    with pytest.raises(AssertionError):  # a rank that wrote no counters never finished its program
        gloo_exit.assert_plain_job_finished(PLAIN, compare(PLAIN, PLAIN, TRACED), 2)
