"""Read a record into an ``EventLog``: torch events in order, with payloads resolved, plus tdiag's own events.

This is the only place that knows the record's event layout; every analysis step reads an EventLog.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tdiag.record import RecordFile, open_record


@dataclass
class TorchEvent:
    """One structured-trace event: ``name`` (``artifact:<name>`` for artifacts), torch's metadata, its payload."""

    name: str
    meta: dict[str, Any]
    t: float | None
    _payload: str | None
    _ref: str | None
    _blobs: dict[str, str]
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


@dataclass
class EventLog:
    """Everything one record (all ranks) holds, in file order per rank."""

    headers: list[dict[str, Any]] = field(default_factory=list)
    torch: list[TorchEvent] = field(default_factory=list)
    break_sites: list[dict[str, Any]] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # absolute path -> text
    blobs: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    compile_brackets: list[dict[str, Any]] = field(default_factory=list)
    other: list[dict[str, Any]] = field(default_factory=list)  # tdiag events other parts add (kernel info, ...)
    exits: dict[int | None, dict[str, Any]] = field(default_factory=dict)  # rank -> exit event
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
    return log


def _load_file(rf: RecordFile, log: EventLog) -> None:
    rank = rf.header.get("rank")
    log.headers.append(rf.header)
    for ev in rf.events():
        kind = ev["type"]
        if kind == "torch":
            meta = ev.get("meta")
            if isinstance(meta, dict) and isinstance(ev.get("name"), str):
                log.torch.append(TorchEvent(ev["name"], meta, ev.get("t"), ev.get("payload"), ev.get("payload_ref"), log.blobs, rank))
        elif kind == "blob":
            if isinstance(ev.get("hash"), str) and isinstance(ev.get("text"), str):
                log.blobs[ev["hash"]] = ev["text"]
        elif kind == "break_site":
            log.break_sites.append({**ev, "rank": rank})
        elif kind == "source":
            if isinstance(ev.get("path"), str) and isinstance(ev.get("text"), str):
                log.sources.setdefault(ev["path"], ev["text"])
        elif kind == "note":
            if ev.get("text") and ev["text"] not in log.notes:
                log.notes.append(str(ev["text"]))
        elif kind == "log":
            log.logs.append({**ev, "rank": rank})
        elif kind in ("compile_start", "compile_end"):
            log.compile_brackets.append({**ev, "rank": rank})
        elif kind == "exit":
            log.exits[rank] = ev
        elif kind != "header":
            log.other.append({**ev, "rank": rank})
    log.stats.update(rf.stats)
    log.problems.extend(rf.problems)
    if rf.truncated or rank not in log.exits:
        log.truncated_ranks.append(rank)
