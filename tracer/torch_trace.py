"""Read torch structured-trace logs (``TORCH_TRACE=dir``, what tlparse reads), streaming, standard library only.

Each log line is a glog prefix and a JSON envelope::

    V1129 21:23:52.167000 4273 torch/_dynamo/convert_frame.py:961] {"dynamo_start": {...}, "frame_id": 0, ...}

optionally followed by payload lines, each starting with a tab. The envelope is exactly the metadata dict that
torch hands to a handler on ``torch.__trace`` (what ``tdiag run`` records as ``meta``), and ``has_payload`` is
the md5 of the payload text, which lets us tell a complete payload from one cut off by a killed process.

Memory is bounded by the largest single event: lines are read one at a time and an event is yielded as soon as
the next envelope starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from tdiag import torch_events as te
from tdiag.lazy_regex import lazy_regex
from tdiag.lean_dataclass import lean_dataclass

# Keys of the metadata dict that describe context rather than name the event (torch's trace_structured adds them).
CONTEXT_KEYS = frozenset(
    {"rank", "frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "has_payload", "stack", "subgraph_name"}
)
# Bulky fields that repeat in every compilation_metrics event and that no analysis uses.
DROPPED_METRIC_FIELDS = ("dynamo_config", "inductor_config")

# "[rank0]:" only appears in non-trace torch logs, but costs nothing to accept. Groups: level, MMDD, HH:MM:SS, usec, pid.
GLOG_PREFIX = lazy_regex(r"(?:\[rank\d+\]:)?([VIWEC])(\d{4}) (\d\d:\d\d:\d\d)\.(\d{6}) +(\d+) ")
RANK_IN_FILE_NAME = lazy_regex(r"rank_(\d+)_")
TRACE_LOG_GLOB = "dedicated_log_torch_trace*.log"
REPORTED_PROBLEMS = 5  # per file: the first few bad lines are named, the rest only counted


def event_name(metadata: dict[str, Any]) -> str | None:
    """``dynamo_start``, ``compilation_metrics``, ``artifact:<name>``... : the first key that is not context."""
    name = next((k for k in metadata if k not in CONTEXT_KEYS), None)
    if name == "artifact" and isinstance(metadata.get("artifact"), dict):
        return te.artifact(str(metadata["artifact"].get("name")))
    return name


def slim_metadata(name: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """Drop what repeats in every event and no analysis reads (configs, full interpreter stacks)."""
    if name in (te.COMPILATION_METRICS, te.BWD_COMPILATION_METRICS):
        metrics = metadata.get(name)
        if isinstance(metrics, dict) and any(k in metrics for k in DROPPED_METRIC_FIELDS):
            return {**metadata, name: {k: v for k, v in metrics.items() if k not in DROPPED_METRIC_FIELDS}}
    elif name in te.FULL_STACK_EVENTS and isinstance(metadata.get(name), dict) and "stack" in metadata[name]:
        return {**metadata, name: {k: v for k, v in metadata[name].items() if k != "stack"}}
    return metadata


@lean_dataclass
class TraceEvent:
    """One structured-trace event: name, metadata, payload."""

    name: str
    meta: dict[str, Any]
    payload: str | None
    t: float | None  # from the glog prefix (torch logs month/day/time only: the year is the log file's)
    pid: int | None
    line: int


@lean_dataclass
class TraceLog:
    """One TORCH_TRACE log file (one process). Iterate ``events()`` once; the counters fill in as it streams."""

    path: Path
    stats: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    truncated: bool = False
    _year: int | None = None
    _time_cache: dict[str, float] = field(default_factory=dict)

    @property
    def rank_from_name(self) -> int | None:
        m = RANK_IN_FILE_NAME.search(self.path.name)
        return int(m.group(1)) if m else None

    def events(self) -> Iterator[TraceEvent]:
        pending: _Pending | None = None
        last_line_complete = True
        lineno = 0
        # newline="\n": a payload may hold a bare "\r", which must stay inside its line
        with open(self.path, encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            for lineno, line in enumerate(fh, 1):
                last_line_complete = line.endswith("\n")
                if line.startswith("\t"):
                    if pending is None:
                        self._bad(lineno, "payload line without an envelope")
                    else:
                        pending.lines.append(line[1:-1] if last_line_complete else line[1:])
                    continue
                if pending is not None:
                    event = self._finish(pending, at_end=False)
                    if event is not None:
                        yield event
                    pending = None
                if not line.strip():
                    continue
                pending = self._envelope(line, lineno, last_line_complete)
        if pending is not None:
            event = self._finish(pending, at_end=True, torn=not last_line_complete)
            if event is not None:
                yield event
        elif lineno and not last_line_complete:
            self._mark_truncated(lineno)

    # -- one line / one event ------------------------------------------------------------------------------------
    def _envelope(self, line: str, lineno: int, complete: bool) -> _Pending | None:
        m = GLOG_PREFIX.match(line)
        start = line.find("] {", m.end() if m else 0)
        if m is None or start < 0:
            self._bad(lineno, "not a structured-trace line")
            return None
        try:
            meta = json.loads(line[start + 2 :])
        except ValueError:
            if not complete:
                return None  # the torn last line of a killed process: _finish is never reached, EOF marks it
            self._bad(lineno, "envelope is not valid JSON")
            return None
        if not isinstance(meta, dict):
            self._bad(lineno, "envelope is not a JSON object")
            return None
        name = event_name(meta)
        if name is None:
            self._bad(lineno, "envelope names no event")
            return None
        return _Pending(name, meta, self._time(m), int(m.group(5)), lineno)

    def _finish(self, p: _Pending, at_end: bool, torn: bool = False) -> TraceEvent | None:
        payload = None
        digest = p.meta.get("has_payload")
        if p.lines or digest is not None:
            payload = "\n".join(p.lines)
            if isinstance(digest, str) and hashlib.md5(payload.encode("utf-8", "surrogateescape")).hexdigest() != digest:
                if at_end:
                    self._mark_truncated(p.line)  # the process died while writing its last payload
                else:
                    self.stats["payload_mismatch"] += 1
                    self._problem(f"{self.path.name}:{p.line}: payload does not match its md5 (edited or damaged); kept")
        elif torn:
            self._mark_truncated(p.line)
        self.stats[p.name] += 1
        self.stats["events"] += 1
        return TraceEvent(p.name, p.meta, payload, p.t, p.pid, p.line)

    def _time(self, m: re.Match) -> float | None:
        key = m.group(2) + m.group(3)
        base = self._time_cache.get(key)
        if base is None:
            if self._year is None:
                self._year = _file_year(self.path)
            try:
                parsed = time.strptime(f"{self._year}{key}", "%Y%m%d%H:%M:%S")
            except ValueError:
                return None
            base = self._time_cache[key] = time.mktime(parsed)  # glog prints local time
        return base + int(m.group(4)) / 1e6

    # -- problems -------------------------------------------------------------------------------------------------
    def _bad(self, lineno: int, why: str) -> None:
        self.stats["malformed_lines"] += 1
        self._problem(f"{self.path.name}:{lineno}: {why}, skipped")

    def _problem(self, text: str) -> None:
        if len(self.problems) < REPORTED_PROBLEMS:
            self.problems.append(text)

    def _mark_truncated(self, lineno: int) -> None:
        self.truncated = True
        self.problems.append(f"{self.path.name}:{lineno}: the log ends in the middle of an event (the process was cut short)")


@lean_dataclass
class _Pending:
    """An event whose payload lines are still arriving."""

    name: str
    meta: dict[str, Any]
    t: float | None
    pid: int
    line: int
    lines: list[str] = field(default_factory=list)


@lean_dataclass
class LogHead:
    """What the first events of a log say about the process that wrote it (read before importing it)."""

    path: Path
    rank: int | None
    pid: int | None
    started: float | None
    torch_version: str | None
    torch_commit: str | None
    events: int  # events seen in the head (0: an empty log)


def read_head(path: Path, max_events: int = 200) -> LogHead:
    log = TraceLog(Path(path))
    rank, pid, started, version, commit, n = log.rank_from_name, None, None, None, None, 0
    for ev in log.events():
        n += 1
        if pid is None:
            pid, started = ev.pid, ev.t
        if rank is None and isinstance(ev.meta.get("rank"), int):
            rank = ev.meta["rank"]
        if ev.name == te.TORCH_VERSION and ev.payload:
            try:
                info = json.loads(ev.payload)
                version, commit = info.get("pytorch_version"), info.get("commit")
            except (ValueError, AttributeError):
                pass
        if n >= max_events or (version is not None and (rank is not None or n > 20)):
            break
    return LogHead(Path(path), rank, pid, started, version, commit, n)


def find_trace_logs(path: str | os.PathLike) -> list[Path]:
    """A TORCH_TRACE directory (one ``dedicated_log_torch_trace*.log`` per process) or one log file."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.is_dir():
        return []
    logs = sorted(p.glob(TRACE_LOG_GLOB)) or sorted(p.glob("*.log"))
    return [f for f in logs if f.is_file()]


def _file_year(path: Path) -> int:
    try:
        return time.localtime(path.stat().st_mtime).tm_year
    except OSError:
        return time.localtime().tm_year
