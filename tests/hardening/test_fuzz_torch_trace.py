"""Property-based fuzzing of the TORCH_TRACE reader (`tdiag.tracer.torch_trace`) and `tdiag import` over mutated real logs.

Parsing must never raise; importing must end in a record or a TdiagError; the imported record must analyse.
"""

from __future__ import annotations

import itertools

import pytest
from fuzzing import apply_byte_mutation, apply_line_mutation, byte_mutation, line_mutation
from hardening_util import FIXTURES, report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tdiag.analyzer import build
from tdiag.tracer.torch_trace import TraceLog, read_head
from tdiag.tracer.trace_import import import_logs, plan_import

from tdiag.errors import TdiagError

COUNTS = {"parse": 0, "import": 0}
_dirs = itertools.count()


def fuzz(n: int):
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def trace_lines(torch_account):
    # the session's one TORCH_TRACE run of the program (tests/conftest.py), shared with the oracle tests; read only
    traced = torch_account(FIXTURES / "data_dependent_if.py")
    assert traced.returncode == 0, traced.stderr
    (log,) = traced.trace_dir.glob("*.log")
    return log.read_bytes().splitlines(keepends=True)


@pytest.fixture(scope="module", autouse=True)
def reported():
    yield
    report("inputs-fuzz-torch-trace-parse", "inputs",
           "fuzz: mutated TORCH_TRACE logs (lines and bytes) through the streaming parser and read_head",
           COUNTS["parse"], "0 exceptions; damage counted as malformed lines / truncation")
    report("inputs-fuzz-torch-trace-import", "inputs", "fuzz: every fourth of those logs also through `tdiag import` and the analyzer",
           COUNTS["import"], "each a record that analyses, or a TdiagError; 0 uncaught exceptions", subset=True)


def check(path, tmp_root, do_import: bool) -> None:
    COUNTS["parse"] += 1
    log = TraceLog(path)
    for ev in log.events():
        assert isinstance(ev.name, str) and isinstance(ev.meta, dict)
    read_head(path)
    if not do_import:
        return
    COUNTS["import"] += 1
    run_dir = tmp_root / f"imp{next(_dirs)}"
    try:
        import_logs(plan_import(path), run_dir, None)
        analysis = build(run_dir)
    except TdiagError as exc:
        assert str(exc)
        return
    assert not [n for n in analysis.run.notes if "failed:" in n]


@fuzz(2500)
@given(st.lists(line_mutation(), min_size=1, max_size=4), st.integers(0, 3))
def test_trace_line_mutations(trace_lines, tmp_path_factory, mutations, which):
    # Payload lines are tab-prefixed text, envelopes are a glog prefix + JSON: line-level edits, no JSON rewriting.
    lines = trace_lines
    for m in mutations:
        lines = apply_line_mutation(lines, m, json_lines=False, keep_header=False)
    path = tmp_path_factory.getbasetemp() / "dedicated_log_torch_trace_fuzz.log"
    path.write_bytes(b"".join(lines))
    check(path, tmp_path_factory.getbasetemp(), do_import=COUNTS["parse"] % 4 == 0)


@fuzz(1500)
@given(st.lists(byte_mutation(), min_size=1, max_size=6), st.integers(0, 3))
def test_trace_byte_mutations(trace_lines, tmp_path_factory, mutations, which):
    data = b"".join(trace_lines)
    for m in mutations:
        data = apply_byte_mutation(data, m)
    path = tmp_path_factory.getbasetemp() / "dedicated_log_torch_trace_fuzzb.log"
    path.write_bytes(data)
    check(path, tmp_path_factory.getbasetemp(), do_import=COUNTS["parse"] % 4 == 0)
