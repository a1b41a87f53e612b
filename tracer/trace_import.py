"""Turn torch structured-trace logs (``TORCH_TRACE``, what tlparse reads) into a tdiag record: ``tdiag import``.

Lives next to the capture because both write the same record from the same envelope (``torch_trace``): ``tdiag run``
receives events from torch's handler, this reads them back from the log files. Standard library only.

One event file per rank, header ``"source": "tdiag import"``. What the logs do not hold (the exit status, bytecode
offsets of breaks, source snapshots) is said in a note, never invented; sources are read from disk only under a
source root. Damaged lines are counted and reported, never fatal. A rank whose log ends in the middle of an event or
of a compile is marked incomplete (no exit event), and the other ranks are analysed as usual.

A directory holding logs of more than one run (two logs claiming the same rank, or two rank-less logs) is refused:
merging them would make up a job that never ran, and picking one would hide the other.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from dataclasses import field
from pathlib import Path

from tdiag.tracer.sources import SourceSnapshotter, offer_event_sources
from tdiag.tracer.torch_trace import LogHead, TraceLog, find_trace_logs, read_head, slim_metadata

import tdiag
from tdiag import torch_events as te
from tdiag.errors import TdiagError
from tdiag.lean_dataclass import lean_dataclass
from tdiag.record import RecordWriter, record_file_name
from tdiag.torch_releases import TESTED

# Ranks of one job start together; logs further apart than this were probably not written by one job.
SAME_JOB_START_SPREAD_S = 3600.0
MISSING_FROM_LOGS = (
    "imported from TORCH_TRACE logs, which do not record the program's exit status, the bytecode offsets of graph "
    "breaks or live compile progress"
)


# -- which logs, as which ranks ------------------------------------------------------------------------------------
@lean_dataclass
class ImportPlan:
    logs: list[tuple[int | None, LogHead]]  # (rank, head), rank order
    notes: list[str] = field(default_factory=list)


def plan_import(trace: str | os.PathLike) -> ImportPlan:
    paths = find_trace_logs(trace)
    if not paths:
        if not Path(trace).exists():
            raise TdiagError(f"no such file or directory: {trace}")
        raise TdiagError(f"{trace} holds no TORCH_TRACE logs (expected dedicated_log_torch_trace*.log or *.log files)")
    heads = [read_head(p) for p in paths]
    if not any(h.events for h in heads):
        names = ", ".join(h.path.name for h in heads[:3]) + (" ..." if len(heads) > 3 else "")
        raise TdiagError(f"not a TORCH_TRACE log: no structured-trace event in {names}")
    by_rank: dict[int | None, list[LogHead]] = defaultdict(list)
    for h in heads:
        by_rank[h.rank].append(h)
    notes = []
    if None in by_rank and len(by_rank) > 1:
        # A rank-less log next to rank logs is another process (a tool, a worker, an earlier single-process run).
        for h in by_rank.pop(None):
            notes.append(f"{h.path.name} names no rank while the other logs do: not part of the job, skipped")
    clashes = {r: hs for r, hs in by_rank.items() if len(hs) > 1}
    if clashes:
        raise TdiagError(_mixed_runs_message(trace, clashes))
    logs = sorted(((r, hs[0]) for r, hs in by_rank.items()), key=lambda item: -1 if item[0] is None else item[0])
    starts = [h.started for _, h in logs if h.started is not None]
    if len(starts) > 1 and max(starts) - min(starts) > SAME_JOB_START_SPREAD_S:
        notes.append(
            f"the rank logs started {(max(starts) - min(starts)) / 60:.0f} minutes apart: check that they come from one job"
        )
    return ImportPlan(logs, notes)


def _mixed_runs_message(trace, clashes: dict[int | None, list[LogHead]]) -> str:
    lines = [f"{trace} holds TORCH_TRACE logs of more than one run:"]
    for rank, heads in sorted(clashes.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        who = "no rank (single process)" if rank is None else f"rank {rank}"
        for h in heads:
            lines.append(f"  {who}: {h.path.name} (pid {h.pid}, started {_when(h.started)})")
    lines.append("import one run at a time: move the other run's logs elsewhere, or pass one log file")
    return "\n".join(lines)


# -- writing the record --------------------------------------------------------------------------------------------
@lean_dataclass
class ImportResult:
    run_dir: Path
    events: int = 0
    incomplete: list[int | None] = field(default_factory=list)


def import_logs(plan: ImportPlan, run_dir: Path, source_root: Path | None) -> ImportResult:
    _prepare_dir(run_dir, [record_file_name(r) for r, _ in plan.logs])
    result = ImportResult(run_dir)
    for rank, head in plan.logs:
        complete, events = _import_one(rank, head, run_dir, source_root, plan.notes)
        result.events += events
        if not complete:
            result.incomplete.append(rank)
    return result


def _import_one(rank: int | None, head: LogHead, run_dir: Path, source_root: Path | None, plan_notes: list[str]) -> tuple[bool, int]:
    header = {
        "tdiag": tdiag.__version__,
        "torch": head.torch_version,
        "torch_tested": list(TESTED),
        "torch_commit": head.torch_commit,
        "python": None,
        "platform": None,
        "device": None,
        "argv": [],
        "root": str(source_root) if source_root else None,
        "cwd": None,
        "rank": rank,
        "pid": head.pid,
        "started": head.started,
        "tool_paths": [],
        "source": "tdiag import",
        "imported_from": str(head.path.resolve()),
    }
    writer = RecordWriter(run_dir / record_file_name(rank), header)
    sources = _snapshotter(writer, source_root)
    log = TraceLog(head.path)
    open_compiles: set[tuple] = set()
    try:
        for ev in log.events():
            meta = slim_metadata(ev.name, ev.meta)
            writer.write_payload({"type": "torch", "t": ev.t, "name": ev.name, "meta": meta}, ev.payload)
            _track_compiles(ev.name, meta, open_compiles)
            if sources is not None:
                offer_event_sources(sources, ev.name, meta, ev.payload)
        who = "the log" if rank is None else f"rank {rank}"
        for note in (MISSING_FROM_LOGS, *plan_notes):
            writer.write({"type": "note", "text": note})
        if source_root is None:
            writer.write({"type": "note", "text": "no source snapshots: pass --source-root DIR to take user sources from disk"})
        if log.stats["events"] == 0:
            writer.write({"type": "note", "text": f"{who} logged nothing: {head.path.name} is empty"})
        elif log.stats[te.DYNAMO_START] == 0:
            writer.write({"type": "note", "text": f"{who} never compiled a frame (no dynamo_start in {head.path.name})"})
        bad = log.stats["malformed_lines"] + log.stats["payload_mismatch"]
        if bad:
            writer.write({"type": "note", "problem": True, "text": f"{head.path.name}: {log.stats['malformed_lines']} malformed "
                          f"line(s) skipped, {log.stats['payload_mismatch']} damaged payload(s) kept"})
        for problem in log.problems:
            writer.write({"type": "note", "problem": True, "text": problem})
        complete = not log.truncated and not open_compiles
        if open_compiles and not log.truncated:
            writer.write({"type": "note", "problem": True, "text": f"{head.path.name}: the log ends inside compile "
                          f"{_cid(next(iter(open_compiles)))} (the process was cut short)"})
        if complete:
            # Marks the rank's record complete; the code stays unknown because the logs never hold it.
            writer.write({"type": "exit", "code": None, "reason": "unknown", "duration_s": None, "imported": True})
        return complete, log.stats["events"]
    finally:
        writer.close()


def _track_compiles(name: str, meta: dict, open_compiles: set[tuple]) -> None:
    """A dynamo_start without its compilation_metrics at the end of the log: the process died mid-compile."""
    if name not in (te.DYNAMO_START, te.COMPILATION_METRICS):
        return
    key = (meta.get("compiled_autograd_id"), meta.get("frame_id"), meta.get("frame_compile_id"))
    if name == te.DYNAMO_START:
        open_compiles.add(key)
    else:
        open_compiles.discard(key)


def _cid(key: tuple) -> str:
    autograd, frame, frame_compile = key
    return (f"!{autograd}/" if autograd is not None else "") + f"{frame}/{frame_compile}"


def _snapshotter(writer: RecordWriter, source_root: Path | None):
    if source_root is None:
        return None
    return SourceSnapshotter(writer, source_root)  # the same snapshot policy as tdiag run's


def _prepare_dir(run_dir: Path, names: list[str]) -> None:
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TdiagError(f"cannot create the record directory {run_dir}: {exc.strerror or exc}") from None
    stale = sorted(p.name for p in run_dir.glob("events*.jsonl") if p.name not in names)
    if stale:
        # Loading would merge them with this import as if one job had written both.
        raise TdiagError(f"{run_dir} already holds another record ({', '.join(stale)}): choose another -o DIR")


def _when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else "unknown"
