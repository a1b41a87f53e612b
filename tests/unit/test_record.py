"""The record reader: foreign, empty, corrupt, newer and truncated files give clear errors or partial reads."""

from __future__ import annotations

import json

import pytest

from tdiag.errors import RecordError
from tdiag.record import FORMAT_VERSION, RecordWriter, open_record


def write_record(path, events):
    w = RecordWriter(path, {"argv": ["x.py"]})
    for e in events:
        w.write(e)
    w.close()
    return path


def test_round_trip_with_blobs(tmp_path):
    w = RecordWriter(tmp_path / "events.jsonl", {"argv": []})
    big = "x" * 5000
    w.write_payload({"type": "torch", "name": "a", "meta": {}}, big)
    w.write_payload({"type": "torch", "name": "b", "meta": {}}, big)
    w.close()
    (rf,) = open_record(tmp_path)
    events = list(rf.events())
    assert [e["type"] for e in events] == ["blob", "torch", "torch"]  # stored once, referenced twice
    assert events[1]["payload_ref"] == events[2]["payload_ref"] == events[0]["hash"]


@pytest.mark.parametrize("end", ["", '"', "\\", "\\\\", '"}', '\\"}', "é"])
def test_blob_lines_read_without_their_text_are_the_writers_whole_lines(tmp_path, end):
    """The analysis reads blob lines without decoding their text (blob_text=False): it must accept exactly the lines
    the writer wrote whole, and never a torn one (a killed run's last line), whatever the text ends with."""
    w = RecordWriter(tmp_path / "events.jsonl", {"argv": []})
    text = "x" * 3000 + end  # long enough to be a blob
    w.write_payload({"type": "torch", "name": "a", "meta": {}}, text)
    w.close()
    (rf,) = open_record(tmp_path)
    full, fast = list(rf.events()), list(rf.events(blob_text=False))
    assert fast[0] == {"type": "blob", "hash": full[0]["hash"]} and full[0]["text"] == text and fast[1:] == full[1:]
    lines = (tmp_path / "events.jsonl").read_bytes().splitlines(keepends=True)
    header, blob = lines[0], lines[1]
    for cut in range(len(blob) - 2, len(blob) - 40, -1):  # torn anywhere in its last bytes
        (tmp_path / "events.jsonl").write_bytes(header + blob[:cut])
        (rf,) = open_record(tmp_path)
        assert list(rf.events(blob_text=False)) == list(rf.events()) == [], cut
        assert rf.truncated


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "is empty"),
        (b"hello world\n", "not a tdiag record"),
        (b'{"type": "header", "format": "other"}\n', "not a tdiag record"),
        (json.dumps({"type": "header", "format": "tdiag-record", "version": FORMAT_VERSION + 1}).encode() + b"\n",
         "newer tdiag"),
        (b"\x00\xff\xfe binary", "not a tdiag record"),
    ],
)
def test_foreign_or_newer_files_are_refused_clearly(tmp_path, content, message):
    f = tmp_path / "events.jsonl"
    f.write_bytes(content)
    with pytest.raises(RecordError, match=message):
        open_record(f)


def test_missing_record_and_empty_directory(tmp_path):
    with pytest.raises(RecordError, match="no such record"):
        open_record(tmp_path / "nope")
    with pytest.raises(RecordError, match="holds no tdiag record"):
        open_record(tmp_path)


def test_corrupt_middle_lines_and_unknown_events_are_counted_not_fatal(tmp_path):
    f = write_record(tmp_path / "events.jsonl", [{"type": "note", "text": "a"}, {"type": "future_thing", "x": 1}])
    with open(f, "ab") as fh:
        fh.write(b"{garbage\n")
        fh.write(b'{"type": "note", "text": "b"}\n')
        fh.write(b'{"type": "note", "te')  # torn last line
    (rf,) = open_record(f)
    events = list(rf.events())
    assert [e.get("text") for e in events if e["type"] == "note"] == ["a", "b"]
    assert rf.stats["unknown:future_thing"] == 1
    assert rf.stats["corrupt_lines"] == 1
    assert rf.truncated


def test_forked_child_never_writes_into_the_parents_record(tmp_path):
    import os

    w = RecordWriter(tmp_path / "events.jsonl", {})
    pid = os.fork()
    if pid == 0:
        w.write({"type": "note", "text": "from child"})
        os._exit(0)
    os.waitpid(pid, 0)
    w.write({"type": "note", "text": "from parent"})
    w.close()
    (rf,) = open_record(tmp_path)
    assert [e["text"] for e in rf.events()] == ["from parent"]
