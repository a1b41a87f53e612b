"""Property-based fuzzing of the record reader and the analyzer (`open_record` + `build`) over mutated real records.

Every case must end in an Analysis or a TdiagError (a clear message; the CLI exits 2), never in any other exception,
and never in an analysis step that caught its own failure (a "... failed:" note).
"""

from __future__ import annotations

import pytest
from fuzzing import apply_byte_mutation, apply_line_mutation, byte_mutation, line_mutation
from hardening_util import report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tdiag.analyzer import build

from tdiag.errors import TdiagError


def fuzz(n: int):
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
COUNTS: dict[str, int] = {}


@pytest.fixture(scope="module")
def seeds(recorded):
    run_dir, proc = recorded("data_dependent_if.py")
    assert proc.returncode == 0, proc.stderr
    data = (run_dir / "events.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    # Parsing the source snapshot for suggestions costs ~20 ms a case: most cases go without it, some with it.
    return {"full": lines, "nosrc": [ln for ln in lines if b'"type":"source"' not in ln]}


@pytest.fixture(scope="module", autouse=True)
def reported():
    yield
    what = {
        "record-lines": ("JSON value type swaps, huge strings, dropped/duplicated/swapped/torn lines of a real record", "nosrc"),
        "record-lines-sources": ("the same mutations on a record with its source snapshot (suggestions run)", "full"),
        "record-bytes": ("byte flips, truncations, inserted and zeroed bytes in a real record", ""),
        "record-foreign": ("arbitrary bytes and arbitrary JSON as a record file", ""),
    }
    for key, n in COUNTS.items():
        report(f"inputs-fuzz-{key}", "inputs", f"fuzz: {what[key][0]}", n,
               "each an Analysis or a TdiagError; 0 uncaught exceptions")


def check(path, key: str) -> None:
    COUNTS[key] = COUNTS.get(key, 0) + 1
    try:
        analysis = build(path)
    except TdiagError as exc:
        assert str(exc)
        return
    failed = [n for n in analysis.run.notes if "failed:" in n]
    assert not failed, failed
    analysis.to_dict()  # what `tdiag report` serialises


@fuzz(4000)
@given(st.lists(line_mutation(), min_size=1, max_size=4))
def test_line_mutations(seeds, tmp_path_factory, mutations):
    lines = seeds["nosrc"]
    for m in mutations:
        lines = apply_line_mutation(lines, m)
    path = tmp_path_factory.getbasetemp() / "fuzz-lines.jsonl"
    path.write_bytes(b"".join(lines))
    check(path, "record-lines")


@fuzz(200)
@given(st.lists(line_mutation(), min_size=1, max_size=3))
def test_line_mutations_with_sources(seeds, tmp_path_factory, mutations):
    lines = seeds["full"]
    for m in mutations:
        lines = apply_line_mutation(lines, m)
    path = tmp_path_factory.getbasetemp() / "fuzz-src.jsonl"
    path.write_bytes(b"".join(lines))
    check(path, "record-lines-sources")


@fuzz(2500)
@given(st.lists(byte_mutation(), min_size=1, max_size=6), st.booleans())
def test_byte_mutations(seeds, tmp_path_factory, mutations, mutate_header):
    lines = seeds["nosrc"]
    head, body = (b"", b"".join(lines)) if mutate_header else (lines[0], b"".join(lines[1:]))
    for m in mutations:
        body = apply_byte_mutation(body, m)
    path = tmp_path_factory.getbasetemp() / "fuzz-bytes.jsonl"
    path.write_bytes(head + body)
    check(path, "record-bytes")


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                       lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                       max_leaves=12)


@fuzz(1000)
@given(st.one_of(
    st.binary(max_size=2000),
    st.lists(JSONISH, max_size=8).map(lambda evs: b"".join(apply_line_mutation([], ("x", 0, 0, None, 0)) or [])
                                      + b"\n".join(__import__("json").dumps(e).encode() for e in evs)),
    st.lists(st.dictionaries(st.sampled_from(["type", "name", "meta", "payload", "payload_ref", "hash", "text", "code",
                                              "path", "compile_id", "line"]), JSONISH, max_size=6), max_size=8)
    .map(lambda evs: b"\n".join(
        [b'{"type":"header","format":"tdiag-record","version":1}'] + [__import__("json").dumps(e).encode() for e in evs])),
))
def test_foreign_files(tmp_path_factory, data):
    path = tmp_path_factory.getbasetemp() / "fuzz-foreign.jsonl"
    path.write_bytes(data)
    check(path, "record-foreign")
