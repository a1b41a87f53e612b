"""The tdiag record: a versioned JSON Lines file, shared by every producer and consumer.

Line 1 is a header (``{"type": "header", "format": "tdiag-record", "version": N, ...}``); every later line is one
event, written with a single ``write`` and flushed, so a crash or SIGKILL loses at most the line being written.
The format is documented in ``docs/record-format.md``. This module imports only the standard library: a record
must be readable on a machine without torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from tdiag.errors import RecordError
from tdiag.lean_dataclass import lean_dataclass

FORMAT_NAME = "tdiag-record"
FORMAT_VERSION = 1
RECORD_SUFFIX = ".jsonl"
# Payloads at least this long are stored once as a blob and referenced by hash (graphs, output code).
BLOB_THRESHOLD = 2048

KNOWN_EVENT_TYPES = frozenset(
    {"header", "torch", "blob", "break_site", "source", "log", "compile_start", "compile_end", "note", "exit", "lowering_info", "triton_launch", "fusion_groups", "kernel_compile", "runtime", "runtime_steady", "cudagraph_pool", "module_stacks", "aot_node_stacks", "capture_problem", "eager_baseline"}
)


# The layout RecordWriter gives a blob line (compact separators, this key order, a 20-hex-digit hash): a reader that
# needs only the hash and the line's offset (the text is read when asked for) recognises it without decoding it.
_BLOB_PREFIX = b'{"type":"blob","hash":"'
_BLOB_TEXT_AT = len(_BLOB_PREFIX) + 20
_BLOB_TEXT_KEY = b'","text":"'
# One encoder for every line: json.dumps with options builds a new encoder (and its C half) per call.
_encode_json = json.JSONEncoder(default=str, ensure_ascii=False, separators=(",", ":")).encode
# The C scanner behind json.loads, called directly: one JSON value from a position (no per-line wrapper work).
_scan_json = json.JSONDecoder().scan_once


def record_file_name(rank: int | None) -> str:
    return "events" + RECORD_SUFFIX if rank is None else f"events.rank{rank}{RECORD_SUFFIX}"


def payload_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


class RecordWriter:
    """Appends events to one record file; safe to call from any thread, silent in forked children."""

    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = Path(path)
        self._pid = os.getpid()
        # Re-entrant: the SIGTERM handler writes the exit event and may interrupt a write on the same thread.
        self._lock = threading.RLock()
        self._blobs: set[str] = set()
        self._failed = False
        self.events_written = 0
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o644)
        self._write_line({"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, **header})

    def write(self, event: dict[str, Any]) -> None:
        if self._fd is None or os.getpid() != self._pid:
            return  # closed, or a forked child: never write into the parent's record
        with self._lock:
            self._write_line(event)
            self.events_written += 1

    def write_payload(self, event: dict[str, Any], payload: str | None) -> None:
        """Write an event whose text payload may be large: big payloads become a shared blob."""
        if payload is not None and len(payload) >= BLOB_THRESHOLD:
            digest = payload_hash(payload)
            if digest not in self._blobs:
                self._blobs.add(digest)
                self.write({"type": "blob", "hash": digest, "text": payload})
            event = {**event, "payload_ref": digest}
        elif payload is not None:
            event = {**event, "payload": payload}
        self.write(event)

    def _write_line(self, obj: dict[str, Any]) -> None:
        if self._failed:
            return
        data = (_encode_json(obj) + "\n").encode(
            "utf-8", "surrogatepass"
        )
        try:
            while data:  # a write cut short (disk nearly full) is finished or fails, never left half-written
                data = data[os.write(self._fd, data):]
        except OSError as exc:  # disk full, directory removed: the program goes on, we say so once
            self._failed = True
            print(f"tdiag: cannot write the record {self.path}: {exc}; recording stopped", file=sys.stderr)

    def close(self) -> None:
        if self._fd is not None and os.getpid() == self._pid:
            with self._lock:
                try:
                    # Writes to a file deleted under us (its directory removed) succeed and go nowhere: say so once.
                    removed = os.fstat(self._fd).st_nlink == 0
                except OSError:
                    removed = False
                os.close(self._fd)
                self._fd = None
            if removed and not self._failed:
                print(f"tdiag: the record {self.path} was removed while the program ran: nothing was kept", file=sys.stderr)


@lean_dataclass
class RecordFile:
    """One event file, read lazily: iterate ``events()`` to stream it."""

    path: Path
    header: dict[str, Any]
    stats: Counter = field(default_factory=Counter)
    truncated: bool = False
    problems: list[str] = field(default_factory=list)
    offset: int = 0  # byte offset of the line of the event last yielded: lets a reader come back for a big payload

    def events(self, blob_text: bool = True) -> Iterator[dict[str, Any]]:
        """Yield events after the header; tolerate a truncated last line and count what is not understood.

        ``blob_text=False``: a complete blob line is yielded as ``{"type": "blob", "hash": ...}`` without decoding its
        text (most of a record's bytes), for a reader that comes back for it at ``offset``."""
        with open(self.path, "rb") as fh:
            next_offset = len(fh.readline())
            lineno = 1
            pending: bytes | None = None
            for raw in fh:
                lineno += 1
                self.offset, next_offset = next_offset, next_offset + len(raw)
                if pending is not None:
                    self._bad_line(lineno - 1)
                    pending = None
                if not blob_text and raw.startswith(_BLOB_PREFIX) and _is_whole_blob_line(raw):
                    self.stats["blob"] += 1
                    yield {"type": "blob", "hash": raw[len(_BLOB_PREFIX):_BLOB_TEXT_AT].decode("ascii")}
                    continue
                event = _decode_line(raw)
                if event is None:
                    pending = raw  # may be the torn last line of a killed run
                    continue
                if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                    self._bad_line(lineno)
                    continue
                if event["type"] not in KNOWN_EVENT_TYPES:
                    self.stats["unknown:" + event["type"]] += 1
                self.stats[event["type"]] += 1
                yield event
            if pending is not None:
                self.truncated = True
                self.problems.append(f"{self.path.name}: last line is incomplete (the run was cut short)")

    def _bad_line(self, lineno: int) -> None:
        self.stats["corrupt_lines"] += 1
        if self.stats["corrupt_lines"] <= 5:
            self.problems.append(f"{self.path.name}:{lineno}: not a record event, skipped")


def _decode_line(raw: bytes) -> Any:
    """One JSON value filling the line (surrounding whitespace allowed), as ``json.loads`` reads it; None if not."""
    try:
        text = raw.decode("utf-8", "surrogatepass")
        start = len(text) - len(text.lstrip())
        value, end = _scan_json(text, start)
    except (UnicodeDecodeError, StopIteration, ValueError, RecursionError):
        return None
    return value if end == len(text) or not text[end:].strip() else None


def _is_whole_blob_line(raw: bytes) -> bool:
    """The writer's blob layout with a hex hash, closed as the writer closes it (a torn line is not)."""
    head = raw[len(_BLOB_PREFIX):_BLOB_TEXT_AT]
    if raw[_BLOB_TEXT_AT:_BLOB_TEXT_AT + len(_BLOB_TEXT_KEY)] != _BLOB_TEXT_KEY or len(head) != 20:
        return False
    body = raw.rstrip(b"\r\n")
    if not body.endswith(b'"}') or len(body) < _BLOB_TEXT_AT + len(_BLOB_TEXT_KEY) + 2:
        return False
    escapes = len(body) - 2 - len(body[:-2].rstrip(b"\\"))  # an odd run of backslashes escapes the quote
    return escapes % 2 == 0 and all(c in b"0123456789abcdef" for c in head)


def _read_header(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 20)
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not first.strip():
        raise RecordError(f"{path} is empty: not a tdiag record")
    try:
        header = json.loads(first)
    except ValueError:
        raise RecordError(f"{path} is not a tdiag record (its first line is not a tdiag header)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME or header.get("type") != "header":
        raise RecordError(f"{path} is not a tdiag record (its first line is not a tdiag header)")
    version = header.get("version")
    if not isinstance(version, int):
        raise RecordError(f"{path}: record header has no valid version")
    if version > FORMAT_VERSION:
        raise RecordError(
            f"{path} was written by a newer tdiag (record format {version}; this tdiag reads up to "
            f"{FORMAT_VERSION}): upgrade tdiag to read it"
        )
    return header


def find_record_files(path: str | os.PathLike) -> list[Path]:
    """A record is a run directory or one event file; return its event files, rank order."""
    p = Path(path)
    if not p.exists():
        raise RecordError(f"no such record: {p}")
    if p.is_dir():
        files = sorted(p.glob("events*" + RECORD_SUFFIX), key=_rank_sort_key)
        if not files:
            raise RecordError(f"{p} holds no tdiag record (expected events*.jsonl; is it a run directory?)")
        return files
    return [p]


def _rank_sort_key(path: Path) -> tuple[int, str]:
    stem = path.name[: -len(RECORD_SUFFIX)]
    rank = stem.rpartition(".rank")[2]
    return (int(rank) if rank.isdigit() else -1, path.name)


def open_record(path: str | os.PathLike) -> list[RecordFile]:
    """Open every event file of a record (validating headers); events are read lazily."""
    return [RecordFile(path=f, header=_read_header(f)) for f in find_record_files(path)]
