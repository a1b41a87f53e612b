"""Read a record into an ``EventLog``: torch events in order, with payloads resolved, plus tdiag's own events.

This is the only place that knows the record's event layout; every analysis step reads an EventLog.
"""

from __future__ import annotations

import json
import os
from collections import Counter, OrderedDict
from dataclasses import field
from pathlib import Path
from typing import Any

from tdiag.lean_dataclass import lean_dataclass
from tdiag.record import RecordFile, open_record


@lean_dataclass
class TorchEvent:
    """One structured-trace event: ``name`` (``artifact:<name>`` for artifacts), torch's metadata, its payload."""

    name: str
    meta: dict[str, Any]
    t: float | None
    _payload: str | None
    _ref: str | None
    _blobs: BlobStore
    rank: int | None = None

    @property
    def payload(self) -> str | None:
        if self._payload is not None:
            return self._payload
        if self._ref is not None:
            return self._blobs.get(self._ref)
        return None

    @property
    def payload_ref(self) -> str | None:
        """A stable hash for the payload (the blob hash when it was stored as one)."""
        return self._ref

    @property
    def data(self) -> dict[str, Any]:
        """The event's own metadata (e.g. the compilation_metrics dict)."""
        key = "artifact" if self.name.startswith("artifact:") else self.name
        value = self.meta.get(key)
        return value if isinstance(value, dict) else {}

    @property
    def compile_id(self) -> str | None:
        meta = self.meta
        if meta.get("frame_id") is None:
            cid = self.data.get("compile_id") if self.name.endswith("compilation_metrics") else None
            return str(cid) if cid is not None else None
        cid = f"{meta['frame_id']}/{meta.get('frame_compile_id')}"
        if meta.get("compiled_autograd_id") is not None:
            cid = f"!{meta['compiled_autograd_id']}/{cid}"
        return cid


class CodeUnavailable(str):
    """Stands in for generated code the record no longer holds (moved or deleted after it was read): a sentence
    renderers show as a note, never an empty code block."""


class BlobSlice:
    """A loader for ``text[start:end]`` of a blob, read when called (the text itself stays in the record)."""

    __slots__ = ("blobs", "digest", "start", "end")

    def __init__(self, blobs: BlobStore, digest: str, start: int = 0, end: int | None = None) -> None:
        self.blobs, self.digest, self.start, self.end = blobs, digest, start, end

    def __call__(self) -> str:
        text = self.blobs.get(self.digest)
        if text is None:
            return CodeUnavailable(self.blobs.missing(self.digest))
        return text[self.start : self.end] if (self.start or self.end is not None) else text


def lazy_code(ev: TorchEvent, part: str | None = None):
    """The event's payload (or ``part`` of it) as a value for Analysis.code: a loader when the payload is a blob."""
    text = ev.payload
    if part is None:
        if ev.payload_ref is not None and text is not None:
            return BlobSlice(ev._blobs, ev.payload_ref)
        return text or ""
    start = text.find(part) if (ev.payload_ref is not None and text) else -1
    if start < 0:
        return part
    return BlobSlice(ev._blobs, ev.payload_ref, start, start + len(part))


class BlobStore:
    """Payload blobs by hash. Those read from a record stay on disk (file and offset) and are read when asked for,
    so that analysing a record of gigabytes of generated code holds only what is being looked at.

    A reference is the record file's name and an offset, read relative to the record directory as it was found
    when loaded (resolved then, so a later change of working directory does not matter); where the record wrote
    itself, or anything its header says, is never used to find it."""

    CACHED = 8  # a consumer often asks for the same payload twice in a row

    def __init__(self) -> None:
        self._where: dict[str, tuple[Path, str, int] | str] = {}
        self._cache: OrderedDict[str, str] = OrderedDict()

    def add_ref(self, digest: str, path: Path, offset: int) -> None:
        path = path.resolve()
        self._where[digest] = (path.parent, path.name, offset)

    def missing(self, digest: str) -> str:
        """Why ``get(digest)`` has nothing: the sentence a renderer shows instead of the code."""
        where = self._where.get(digest)
        if isinstance(where, tuple):
            record_dir, name, _ = where
            if not (record_dir / name).is_file():
                return (f"generated code not available: the record file {name} is no longer in {record_dir} "
                        "(moved or deleted after it was read); open the record again where it is now")
            return f"generated code not available: {name} in {record_dir} changed after it was read"
        return "generated code not available: this record does not hold it"

    def __setitem__(self, digest: str, text: str) -> None:
        self._where[digest] = text

    def __contains__(self, digest: object) -> bool:
        return digest in self._where

    def __len__(self) -> int:
        return len(self._where)

    def get(self, digest: str | None, default: str | None = None) -> str | None:
        where = self._where.get(digest) if isinstance(digest, str) else None
        if where is None:
            return default
        if isinstance(where, str):
            return where
        text = self._cache.get(digest)
        if text is None:
            record_dir, name, offset = where
            text = _read_blob(record_dir / name, offset)
            if text is None:
                return default
            self._cache[digest] = text
            if len(self._cache) > self.CACHED:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(digest)
        return text


def _read_blob(path: Path, offset: int) -> str | None:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            event = json.loads(fh.readline())
    except (OSError, ValueError):  # the file changed or went away since it was read
        return None
    text = event.get("text") if isinstance(event, dict) else None
    return text if isinstance(text, str) else None


# Events no analysis reads, dropped on load so that memory follows what the analysis needs, not the record's size.
DROPPED_EVENTS = frozenset({"describe_storage", "describe_tensor", "describe_source"})
DROPPED_SUFFIXES = ("_ORIGINAL_BYTECODE", "_MODIFIED_BYTECODE")


@lean_dataclass
class EventLog:
    """Everything one record (all ranks) holds, in file order per rank."""

    headers: list[dict[str, Any]] = field(default_factory=list)
    torch: list[TorchEvent] = field(default_factory=list)
    break_sites: list[dict[str, Any]] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # absolute path -> text
    source_labels: dict[str, str] = field(default_factory=dict)  # path of code with no file (a notebook cell) -> "In [3]"
    blobs: BlobStore = field(default_factory=BlobStore)
    notes: list[str] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    compile_brackets: list[dict[str, Any]] = field(default_factory=list)
    other: list[dict[str, Any]] = field(default_factory=list)  # tdiag events other parts add (kernel info, ...)
    exits: dict[int | None, dict[str, Any]] = field(default_factory=dict)  # rank -> exit event
    crashes: list[dict[str, Any]] = field(default_factory=list)  # ending exceptions (program and threads), with rank
    stats: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    truncated_ranks: list[int | None] = field(default_factory=list)

    @property
    def header(self) -> dict[str, Any]:
        return self.headers[0] if self.headers else {}

    def named(self, *names: str) -> list[TorchEvent]:
        wanted = set(names)
        return [e for e in self.torch if e.name in wanted]


def load(path: str | os.PathLike | list[RecordFile]) -> EventLog:
    files = path if isinstance(path, list) else open_record(Path(path))
    log = EventLog()
    for rf in files:
        _load_file(rf, log)
    if log.stats["malformed_fields"]:
        log.problems.append(f"{log.stats['malformed_fields']} event field(s) of the wrong type were ignored")
    return log


# Field types every analysis step may rely on. A record is input like any other (hand-edited, damaged, crafted):
# a field of the wrong type is dropped here, once, so no consumer has to re-check it.
_NUMBER = (int, float)
_OPT_INT = (int, type(None))
HEADER_FIELDS: dict[str, tuple[type, ...]] = {
    "rank": _OPT_INT, "argv": (list,), "root": (str,), "cwd": (str,), "tool_paths": (list,), "tdiag": (str,),
    "torch": (str,), "python": (str,), "device": (str,), "platform": (str,), "started": _NUMBER, "source": (str,),
    "pid": (int,), "host": (str,), "torch_tested": (list,),
}
TORCH_META_FIELDS: dict[str, tuple[type, ...]] = {
    "frame_id": _OPT_INT, "frame_compile_id": _OPT_INT, "attempt": _OPT_INT, "compiled_autograd_id": _OPT_INT,
    "rank": _OPT_INT,
}
EVENT_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "torch": {"t": _NUMBER, "payload": (str,), "payload_ref": (str,)},
    "break_site": {
        "filename": (str,), "code_name": (str,), "user_code_name": (str,), "opname": (str,), "gb_type": (str,),
        "compile_id": (str,), "line": (int,), "col": (int,), "end_col": (int,), "end_line": (int,), "offset": (int,),
        "traced_offset": (int,), "user_firstlineno": (int,),
    },
    "exit": {"code": (int,), "reason": (str,), "duration_s": _NUMBER, "device": (str,), "matmul": (dict,)},
    "compile_start": {"t": _NUMBER, "compile_id": (str,), "trigger": (str,), "stack": (list,)},
    "compile_end": {"t": _NUMBER, "compile_id": (str,), "trigger": (str,)},
    "note": {"text": (str,)},
    "torch_warning": {
        "message": (str,), "category": (str,), "module": (str,), "filename": (str,), "lineno": (int,),
        "compile_id": (str,), "traced_stack": (list,), "stack": (list,), "user_frame": (dict,),
    },
    "eager_baseline": {"runs": (list,), "reason": (str,), "runs_asked": (int,), "env": (dict,)},
    "crash": {
        "thread": (str,), "exception": (str,), "message": (str,), "frames": (list,), "user_stack": (list,),
        "compile_id": (str,), "gb_type": (str,), "backend_name": (str,), "inner": (dict,), "causes": (list,),
    },
}


def _typed(obj: dict[str, Any], fields: dict[str, tuple[type, ...]], log: EventLog) -> dict[str, Any]:
    """``obj`` without the listed fields whose value has the wrong type (a copy only when one is dropped)."""
    bad = [k for k, types in fields.items() if k in obj and obj[k] is not None and not _is(obj[k], types)]
    if not bad:
        return obj
    log.stats["malformed_fields"] += len(bad)
    return {k: v for k, v in obj.items() if k not in bad}


def _is(value: Any, types: tuple[type, ...]) -> bool:
    # bool is an int to isinstance, never a line number or an exit code
    return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)


def _clean_header(header: dict[str, Any], log: EventLog) -> dict[str, Any]:
    header = _typed(header, HEADER_FIELDS, log)
    for key in ("argv", "tool_paths"):
        if key in header and not all(isinstance(a, str) for a in header[key]):
            log.stats["malformed_fields"] += 1
            header = {**header, key: [a for a in header[key] if isinstance(a, str)]}
    return header


def _load_file(rf: RecordFile, log: EventLog) -> None:
    header = _clean_header(rf.header, log)
    rank = header.get("rank")
    log.headers.append(header)
    for ev in rf.events(blob_text=False):  # a blob's text stays in the file until asked for (BlobStore)
        kind = ev["type"]
        fields = EVENT_FIELDS.get(kind)
        if fields is not None:
            ev = _typed(ev, fields, log)
        if kind == "torch":
            meta = ev.get("meta")
            if isinstance(meta, dict) and isinstance(ev.get("name"), str):
                if ev["name"] in DROPPED_EVENTS or ev["name"].endswith(DROPPED_SUFFIXES):
                    continue
                meta = _typed(meta, TORCH_META_FIELDS, log)
                log.torch.append(TorchEvent(ev["name"], meta, ev.get("t"), ev.get("payload"), ev.get("payload_ref"), log.blobs, rank))
            else:
                log.stats["malformed_fields"] += 1
        elif kind == "blob":
            if isinstance(ev.get("hash"), str) and isinstance(ev.get("text", ""), str):
                log.blobs.add_ref(ev["hash"], rf.path, rf.offset)
        elif kind == "break_site":
            log.break_sites.append({**ev, "rank": rank})
        elif kind == "source":
            if isinstance(ev.get("path"), str) and isinstance(ev.get("text"), str):
                log.sources.setdefault(ev["path"], ev["text"])
                if isinstance(ev.get("label"), str) and ev["label"]:
                    log.source_labels.setdefault(ev["path"], ev["label"])
        elif kind == "note":
            # A note marked as a problem (damage an import found) belongs with the record's problems.
            target = log.problems if ev.get("problem") is True else log.notes
            if ev.get("text") and ev["text"] not in target:
                target.append(ev["text"])
        elif kind == "log":
            log.logs.append({**ev, "rank": rank})
        elif kind in ("compile_start", "compile_end"):
            log.compile_brackets.append({**ev, "rank": rank})
        elif kind == "exit":
            log.exits[rank] = ev
        elif kind == "crash":
            if isinstance(ev.get("exception"), str):
                log.crashes.append({**ev, "rank": rank})
        elif kind != "header":
            log.other.append({**ev, "rank": rank})
    log.stats.update(rf.stats)
    log.problems.extend(rf.problems)
    if rf.truncated or rank not in log.exits:
        log.truncated_ranks.append(rank)
