"""Under `tdiag run` a program computes bit-for-bit what it computes under python: outputs, gradients, RNG state,
stdout/stderr bytes and exit status, on eager, aot_eager and Inductor, with and without graph breaks."""

from __future__ import annotations

import pytest
import torch
from hardening_util import FIXTURES, plain, report, under_tdiag
from tdiag.analyzer import build


def assert_same_results(a_path, b_path) -> int:
    a, b = torch.load(a_path), torch.load(b_path)
    assert a.keys() == b.keys()
    assert a.pop("rng_state").numpy().tobytes() == b.pop("rng_state").numpy().tobytes()
    compared = 1
    for key in a:
        for name in a[key]:
            assert torch.equal(a[key][name], b[key][name]), (key, name)
            compared += 1
    return compared


def compare(tmp_path, env, backends: list[str]) -> tuple[int, object]:
    expected = plain(["numerics.py", str(tmp_path / "plain.pt"), *backends], env)
    got = under_tdiag(tmp_path / "run", ["numerics.py", str(tmp_path / "tdiag.pt"), *backends], env)
    assert got.returncode == expected.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout
    assert got.stderr == expected.stderr
    tensors = assert_same_results(tmp_path / "plain.pt", tmp_path / "tdiag.pt")
    return tensors, build(tmp_path / "run")


def test_eager_and_aot_eager_forward_backward_are_bitwise_identical(session_env, tmp_path):
    tensors, analysis = compare(tmp_path, session_env, ["eager", "aot_eager"])
    assert analysis.summary.graph_breaks == 2  # one per backend, the recording saw them
    report("behaviour-numerics-eager", "behaviour",
           "eager + aot_eager, with/without a graph break, forward + backward, RNG consumed in the graph",
           tensors, "outputs, gradients and RNG state bitwise equal; stdout, stderr bytes and exit status equal")


@pytest.mark.inductor
def test_inductor_with_provenance_tracking_is_bitwise_identical(session_env, tmp_path):
    # tdiag turns provenance_tracking_level on (a different FX cache key): the generated code must compute the same.
    tensors, analysis = compare(tmp_path, session_env, ["inductor"])
    assert analysis.summary.graph_breaks == 1
    report("behaviour-numerics-inductor", "behaviour",
           "Inductor (provenance tracking on under tdiag, off under python), forward + backward, with/without a break",
           tensors, "outputs, gradients and RNG state bitwise equal; stdout, stderr bytes and exit status equal")


WRAPPER = """
import runpy, sys
import torch._dynamo.symbolic_convert as sc, torch._dynamo.callback as cb
# A torch without the two hooks tdiag adds: the break hook moved off the base class, the callback registry gone.
f = sc.InstructionTranslatorBase.__dict__["log_graph_break"]
del sc.InstructionTranslatorBase.log_graph_break
sc.InstructionTranslator.log_graph_break = sc.InliningInstructionTranslator.log_graph_break = f
del cb.callback_handler
if sys.argv[1] == "tdiag":
    from tdiag.cli import main
    sys.exit(main(["run", "--no-tui", "-q", "-o", sys.argv[2], "data_dependent_if.py"]))
sys.argv = ["data_dependent_if.py"]
runpy.run_path("data_dependent_if.py", run_name="__main__")
"""


def test_missing_torch_hooks_degrade_to_a_capture_problem(session_env, tmp_path):
    expected = plain(["-c", WRAPPER, "plain"], session_env, cwd=FIXTURES)
    got = plain(["-c", WRAPPER, "tdiag", str(tmp_path / "r")], session_env, cwd=FIXTURES)
    assert got.returncode == expected.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout and got.stderr == expected.stderr
    a = build(tmp_path / "r")
    missing = {p.what for p in a.run.capture_problems if p.exception == "missing"}  # "capture incomplete", lint exit 2
    assert "torch._dynamo.symbolic_convert.InstructionTranslatorBase.log_graph_break" in missing
    assert "torch._dynamo.callback.callback_handler" in missing
    assert a.summary.graph_breaks == 1  # still found, from the structured trace
    assert a.breaks[0].offset is None  # the detail only the missing hook gives
    report("behaviour-missing-hooks", "behaviour",
           "torch without InstructionTranslatorBase.log_graph_break and torch._dynamo.callback", 1,
           "program output and exit status unchanged; two missing touchpoints in the record (capture incomplete); "
           "the break still found, without offset")


def test_unknown_trace_events_are_kept_and_do_not_disturb(session_env, tmp_path):
    expected = plain(["unknown_event.py"], session_env)
    got = under_tdiag(tmp_path / "r", ["unknown_event.py"], session_env)
    assert got.returncode == expected.returncode == 0
    assert got.stdout == expected.stdout and got.stderr == expected.stderr
    a = build(tmp_path / "r")
    assert a.summary.graph_breaks == 1
    report("behaviour-unknown-events", "behaviour", "structured-trace events and artifacts of names tdiag does not know",
           1, "program unchanged; recorded as torch events, analysis unaffected")
