"""CUDA graphs per compiled graph: whether torch recorded it, every reason it skipped it, and each recording.

Reads what compiler/cudagraph_watch.py and tracer/progress.py put in the record: torch's own log lines (skip
reasons at WARNING, recordings at DEBUG/INFO, each with the compile id they concern), the ``CUDAGRAPH_RECORDING``
compile brackets (one per recording) and ``compilation_metrics.cudagraph_skip_reason`` (a skip decided while
compiling). Pure: no torch.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from tdiag.analyzer.model import Analysis, CudaGraphInfo, CudaGraphRecording, CudaGraphSkip, Site
from tdiag.analyzer.paths import PathMapper

from tdiag.lazy_regex import lazy_regex

# torch/_inductor/cudagraph_utils.py format_default_skip_message; compile_fx.py says "disabling" for incompatible ops
_PREFIX = lazy_regex(r"^\s*(?:skipping cudagraphs? due to|disabling cudagraphs due to)\s*", re.I)
_FOUND_FROM = lazy_regex(r"\.?\s*Found from\s*:?\s*\n?", re.I)
_FILE_LINE = lazy_regex(r'File "([^"]+)", line (\d+), in ([^\n]+)\n([^\n]*)')
# compiler/cudagraph_watch.py's wrapper of CUDAGraphTreeManager.record_function, in the form of torch's DEBUG line
# there (torch/_inductor/cudagraph_trees.py), which a record imported from TORCH_LOGS output would carry
_RECORDING = lazy_regex(r"^\[([^\]]*)\] Recording function=(\S+), mode=(\w+)(?:, cuda_graph_id=\d+)?, inputs: (.*)$", re.S)
# torch/_inductor/cudagraph_trees.py get_container ... deferred_cudagraphify
_SYMINT_KEY = lazy_regex(r"^\[([^\]]*)\] Recording cudagraph tree for symint key (.+)$")
_TENSOR_SIZE = lazy_regex(r"Tensor\(size=(\[[^\]]*\])")
RECORDING_TRIGGER = "CUDAGRAPH_RECORDING"

KINDS = (  # (kind, test on torch's reason text), first match wins
    ("rerecord_limit", lambda r: "re-recording limit" in r),
    ("mutated_input", lambda r: "mutated inputs" in r or "input storage mutation" in r),
    ("cpu_device", lambda r: r.startswith("cpu device")),
    ("multiple_devices", lambda r: r.startswith("multiple devices")),
    ("incompatible_op", lambda r: "incompatible op" in r),
    ("dynamic_graph", lambda r: "symbolic shapes" in r or "dynamic shape" in r),
    ("non_tensor_input", lambda r: "non-tensor inputs" in r),
    ("control_flow", lambda r: "control flow operator" in r),
    ("data_dependent_op", lambda r: "boolean indexing" in r),
)


def stage(facts) -> None:
    """The cudagraphs stage of analyzer/stages.py."""
    attach(facts.analysis, facts.log)


def attach(analysis: Analysis, log: Any) -> None:
    """Set ``CompiledGraph.cudagraph`` on every graph torch made a CUDA-graph decision about."""
    infos: dict[tuple[Any, str], CudaGraphInfo] = defaultdict(CudaGraphInfo)
    paths = PathMapper(log.header.get("root"), log.header.get("tool_paths"), log.header.get("cwd"))
    for ev in log.named("compilation_metrics"):
        reason = ev.data.get("cudagraph_skip_reason")
        if isinstance(reason, str) and reason:
            cid = str(ev.data.get("compile_id") or ev.compile_id)
            _add_skip(infos[(ev.rank, cid)], parse_skip(reason, "compile", paths.is_library), paths)
    pending_key: dict[tuple[Any, str], list[str]] = defaultdict(list)  # logged just before the recording it causes
    for entry in log.logs:
        text, cid = entry.get("msg"), entry.get("compile_id")
        if not isinstance(text, str) or not isinstance(cid, str) or "cudagraph" not in str(entry.get("logger")):
            continue
        key = (entry.get("rank"), cid)
        info = infos[key]
        if entry.get("level") in ("WARNING", "ERROR") and _PREFIX.match(text):
            _add_skip(info, parse_skip(text, _when(text), paths.is_library), paths)
        elif match := _RECORDING.match(text):
            inputs = _TENSOR_SIZE.findall(match.group(4))
            symint_key = pending_key[key].pop(0) if pending_key[key] else None
            info.recordings.append(CudaGraphRecording(match.group(3), inputs, symint_key))
        elif match := _SYMINT_KEY.match(text):
            pending_key[key].append(match.group(2).strip())
    for key, symint_keys in pending_key.items():  # no input sizes recorded for these (no wrapper on this torch)
        infos[key].recordings.extend(CudaGraphRecording(symint_key=k) for k in symint_keys)
    brackets = defaultdict(int)
    for b in log.compile_brackets:
        if b.get("type") == "compile_start" and b.get("trigger") == RECORDING_TRIGGER and b.get("compile_id"):
            brackets[(b.get("rank"), str(b["compile_id"]))] += 1
    for key, count in brackets.items():
        info = infos[key]
        # the DEBUG line is missing when the user's logging swallowed it; the bracket is not
        info.recordings.extend(CudaGraphRecording() for _ in range(max(count - len(info.recordings), 0)))
    graphs = {(g.rank, g.compile_id): g for g in analysis.graphs}
    for key, info in infos.items():
        graph = graphs.get(key)
        if graph is None:
            continue
        recorded = bool(info.recordings)
        info.status = "partial" if recorded and info.skips else "recorded" if recorded else "skipped" if info.skips else "unknown"
        graph.cudagraph = info
    pools = [ev for ev in log.other if ev.get("type") == "cudagraph_pool" and isinstance(ev.get("bytes"), int)]
    if pools:
        analysis.run.notes.append(
            "CUDA graph memory pools at exit: "
            + ", ".join(f"{_mib(ev['bytes'])}" + (f" (rank {ev['rank']})" if ev.get("rank") is not None else "") for ev in pools)
        )


def _when(text: str) -> str:
    return "run" if "mutated inputs" in text or "re-recording limit" in text else "compile"


def _add_skip(info: CudaGraphInfo, skip: CudaGraphSkip, paths: PathMapper) -> None:
    if skip.site is not None:
        skip.site.path = paths.display(skip.site.path)
    if not any(s.reason == skip.reason and s.at == skip.at for s in info.skips):  # metrics + log say it twice
        info.skips.append(skip)


def parse_skip(text: str, at: str = "compile", is_library=lambda path: False) -> CudaGraphSkip:
    """torch's skip message -> kind, reason, op, and the innermost user line of its "Found from" stack trace."""
    body = _PREFIX.sub("", _PREFIX.sub("", text.strip()))  # a cached reason can carry the prefix twice
    parts = _FOUND_FROM.split(body, maxsplit=1)
    reason, trace = parts[0].strip().rstrip("."), (parts[1] if len(parts) > 1 else "")
    lowered = reason.lower()
    kind = next((name for name, test in KINDS if test(lowered)), "other")
    frames = _FILE_LINE.findall(trace)
    frames = [f for f in frames if not is_library(f[0])] or frames
    site = code = None
    if frames:
        path, line, function, code_line = frames[-1]  # torch prints the innermost frame last
        site = Site(path, int(line), function=function.strip())
        code = code_line.strip() or None
    return CudaGraphSkip(kind=kind, reason=reason, op=_op(kind, reason), site=site, code=code, at=at, text=text.strip())


def _op(kind: str, reason: str) -> str | None:
    if kind == "cpu_device":
        match = re.search(r"cpu device \(([^)]+)\)", reason)
        return match.group(1) if match else None
    if kind == "incompatible_op":
        match = re.search(r"incompatible op \(?([\w.]+)", reason)
        return match.group(1) if match else None
    return None


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"
