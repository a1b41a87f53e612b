"""The TORCH_TRACE parser on its own: real tlparse input, damaged lines, torn last lines. No torch needed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from tdiag.tracer.torch_trace import TraceLog, event_name, find_trace_logs, read_head

TLPARSE_HEAD = Path(__file__).parent / "data" / "tlparse_simple_corrupted_json_head.log"
PREFIX = "V1129 21:23:52.167000 4273 torch/_dynamo/convert_frame.py:961] "


def envelope(meta: dict, payload: str | None = None) -> str:
    if payload is not None:
        meta = {**meta, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
    text = PREFIX + json.dumps(meta)
    if payload is not None:
        text += "".join(f"\n\t{line}" for line in payload.split("\n"))
    return text + "\n"


def test_tlparse_log_is_read_event_by_event_with_payloads_checked():
    log = TraceLog(TLPARSE_HEAD)
    events = list(log.events())
    assert len(events) == 25
    assert log.stats["str"] == 12 and log.stats["dynamo_start"] == 1
    # The second event's payload was damaged on purpose in tlparse's input: reported, kept, not fatal.
    assert log.stats["payload_mismatch"] == 1 and "md5" in log.problems[0]
    graph = next(e for e in events if e.name == "dynamo_output_graph")
    assert graph.payload.startswith("class GraphModule(torch.nn.Module):")
    assert graph.meta["frame_id"] == 0 and graph.pid == 1500233
    assert not log.truncated


def test_event_names():
    cases = {
        "dynamo_start": {"dynamo_start": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
        "artifact:recompile_reasons": {"rank": 1, "artifact": {"name": "recompile_reasons", "encoding": "string"}, "frame_id": 3},
        "chromium_event": {"compiled_autograd_id": None, "chromium_event": {}, "has_payload": "x"},
        "str": {"str": ["/x.py", 0]},
        None: {"frame_id": 0},
    }
    for expected, meta in cases.items():
        assert event_name(meta) == expected


def test_bad_lines_are_counted_and_skipped(tmp_path):
    path = tmp_path / "trace.log"
    path.write_text(
        "\tstray payload line\n"
        + envelope({"dynamo_start": {}, "frame_id": 0, "frame_compile_id": 0}, "a\n\tb\r\nc")
        + "this is not a trace line\n"
        + PREFIX + "{not json}\n"
        + PREFIX + '{"frame_id": 0}\n'
        + envelope({"compilation_metrics": {"dynamo_config": "x", "co_name": "f"}, "frame_id": 0, "frame_compile_id": 0})
    )
    log = TraceLog(path)
    events = list(log.events())
    assert [e.name for e in events] == ["dynamo_start", "compilation_metrics"]
    assert events[0].payload == "a\n\tb\r\nc"  # tabs and carriage returns inside a payload survive
    assert log.stats["malformed_lines"] == 4 and log.stats["payload_mismatch"] == 0
    assert not log.truncated


def test_torn_last_payload_marks_the_log_truncated(tmp_path):
    full = envelope({"str": ["/x.py", 0]}) + envelope({"dynamo_output_graph": {}, "frame_id": 0}, "line one\nline two")
    path = tmp_path / "trace.log"
    path.write_text(full[:-6])
    log = TraceLog(path)
    events = list(log.events())
    assert [e.name for e in events] == ["str", "dynamo_output_graph"]
    assert log.truncated and "cut short" in log.problems[-1]


def test_torn_last_envelope_marks_the_log_truncated(tmp_path):
    full = envelope({"str": ["/x.py", 0]}) + envelope({"dynamo_start": {"stack": []}, "frame_id": 0})
    path = tmp_path / "trace.log"
    path.write_text(full[:-10])
    log = TraceLog(path)
    assert [e.name for e in log.events()] == ["str"]
    assert log.truncated and log.stats["malformed_lines"] == 0


def test_rank_and_torch_version_come_from_the_head(tmp_path):
    version = json.dumps({"pytorch_version": "2.13.0+cpu", "commit": "abc", "oss": True})
    path = tmp_path / "dedicated_log_torch_trace_rank_3_xyz.log"
    path.write_text(envelope({"artifact": {"name": "torch_version", "encoding": "json"}}, version))
    head = read_head(path)
    assert (head.rank, head.torch_version, head.pid) == (3, "2.13.0+cpu", 4273)
    assert find_trace_logs(tmp_path) == [path]


def test_parser_and_analyzer_do_not_import_torch():
    code = (
        "import sys, tdiag.tracer.torch_trace, tdiag.tracer.trace_import, tdiag.commands.import_trace, tdiag.analyzer.rules.div001_rank_divergence\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
