"""Inductor compile spans from ``chromium_event`` B/E pairs: cache state and kernel-compile time per graph role,
and GEMM autotuning decisions (``*_template_autotuning`` end events under max-autotune)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import field
from typing import Any

from tdiag.analyzer.events import EventLog
from tdiag.analyzer.model import GraphKey

from tdiag.lean_dataclass import lean_dataclass

KERNEL_COMPILE_SPAN = "async_compile.wait"
INDUCTOR_SPAN = "inductor_compile"
AUTOTUNE_SUFFIX = "_template_autotuning"


@lean_dataclass
class RoleSpan:
    """One ``inductor_compile`` (compile_fx_inner) run: a forward, backward or inference graph."""

    role: str
    start: float
    end: float
    cache_state: str | None
    kernel_compile_s: float = 0.0
    autotune: list[dict[str, Any]] = field(default_factory=list)


def spans_by_graph(log: EventLog) -> dict[GraphKey, list[RoleSpan]]:
    """Role spans per graph. Ranks compile at the same time in separate processes, so each rank's spans, kernel
    compile waits and autotuning are paired within that rank only."""
    by_rank: dict[int | None, list[tuple[str | None, dict[str, Any]]]] = defaultdict(list)
    for ev in log.named("chromium_event"):
        try:
            data = json.loads(ev.payload or "")
        except ValueError:
            continue
        if isinstance(data, dict):
            by_rank[ev.rank].append((ev.compile_id, data))
    roles: dict[GraphKey, list[RoleSpan]] = {}
    for rank, events in by_rank.items():
        for cid, spans in _spans(events).items():
            roles[GraphKey(rank, cid)] = spans
    return roles


def _spans(events: list[tuple[str | None, dict[str, Any]]]) -> dict[str, list[RoleSpan]]:
    open_spans: dict[tuple[str | None, str], list[float]] = defaultdict(list)
    roles: dict[str, list[RoleSpan]] = defaultdict(list)
    waits: list[tuple[float, float]] = []
    autotunes: list[tuple[float, dict[str, Any]]] = []
    for cid, data in events:
        name, phase, ts = data.get("name"), data.get("ph"), data.get("ts")
        args = data.get("args") if isinstance(data.get("args"), dict) else {}
        if not isinstance(name, str) or not isinstance(ts, (int, float)):
            continue
        key = (cid, name)
        if phase == "B":
            open_spans[key].append(float(ts))
            continue
        if phase != "E" or not open_spans[key]:
            continue
        start = open_spans[key].pop()
        if name == INDUCTOR_SPAN:
            span_cid = str(args.get("compile_id") or cid)
            roles[span_cid].append(RoleSpan(_role(args), start, float(ts), args.get("cache_state")))
        elif name == KERNEL_COMPILE_SPAN:
            waits.append((start, float(ts)))
        elif name.endswith(AUTOTUNE_SUFFIX):
            autotunes.append((start, _autotune(name, args)))
    for spans in roles.values():
        for span in spans:
            span.kernel_compile_s = round(sum((e - s) / 1e6 for s, e in waits if span.start <= s and e <= span.end), 6)
            span.autotune = [a for t, a in sorted(autotunes, key=lambda x: x[0]) if span.start <= t <= span.end]
    return roles


def _role(args: dict[str, Any]) -> str:
    if args.get("is_backward"):
        return "backward"
    return "inference" if args.get("is_inference") else "forward"


def _autotune(name: str, args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"op": name[: -len(AUTOTUNE_SUFFIX)]}
    for key in ("autotune_shape", "autotune_dtypes", "autotune_strides"):
        if args.get(key) is not None:
            out[key.replace("autotune_", "")] = args[key]
    stats = args.get("autotune_choices_stats")
    if isinstance(stats, str):
        try:
            stats = json.loads(stats)
        except ValueError:
            stats = {"raw": stats}
    if isinstance(stats, dict):
        out.update(stats)
    return out
