"""Attach the kernel table to every compiled graph: kernels in execution order with kind, backend, fused nodes,
user lines, generated source, launch metadata and autotune choices; AOT split; compile stages per role.

The kernel list of a graph comes from that graph's own ``inductor_output_code`` call sites; the provenance
artifacts are only indexed with the handles found there (they can be empty or polluted for lazily compiled
backward graphs). Works from a record alone: no torch.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import field
from typing import TYPE_CHECKING, Any

from tdiag.analyzer import compile_spans, kernel_modules
from tdiag.analyzer.aot_graphs import aot_info
from tdiag.analyzer.events import EventLog, TorchEvent, lazy_code
from tdiag.analyzer.model import Analysis, CompiledGraph, GraphKey, Kernel, SourceRef
from tdiag.analyzer.paths import PathMapper

from tdiag.lazy_regex import lazy_regex
from tdiag.lean_dataclass import lean_dataclass
from tdiag.record import payload_hash

if TYPE_CHECKING:
    from tdiag.analyzer import output_code, post_grad
# output_code, post_grad and kernel_kinds parse Inductor's output and are imported where used: the end-of-run summary
# of a record without Inductor code (eager, aot_eager) never loads them.

ROLES = ("forward", "backward", "inference")
STACK_FRAME = lazy_regex(r'File "([^"]+)", line (\d+), in (\S+)\n([^\n]*)')
CACHE_EVENTS = ("artifact:fx_graph_cache_hit", "artifact:fx_graph_cache_miss", "artifact:fx_graph_cache_bypass")
GRAPH_EVENTS = {
    "inductor_output_code", "artifact:inductor_provenance_tracking_node_mappings",
    "artifact:inductor_provenance_tracking_kernel_stack_traces", "artifact:inductor_post_grad_graph",
    "inductor_post_grad_graph", "aot_forward_graph", "aot_backward_graph", "aot_joint_graph", "artifact:triton_kernel_info",
    *CACHE_EVENTS,
}
FALLBACK_REASONS = {"explicit": "explicit (make_fallback)", "implicit": "implicit (no lowering)",
                    "declined": "unsupported dtype/device (the lowering declined)"}


@lean_dataclass
class GraphEvents:
    """Every kernel-related event of one compile id (one rank)."""

    by_name: dict[str, list[TorchEvent]] = field(default_factory=lambda: defaultdict(list))

    def all(self, *names: str) -> list[TorchEvent]:
        return [e for n in names for e in self.by_name.get(n, [])]

    def last_payload(self, name: str) -> str | None:
        events = self.by_name.get(name)
        return events[-1].payload if events else None


def stage(facts) -> None:
    """The kernels stage of analyzer/stages.py."""
    attach(facts.analysis, facts.log)


def attach(analysis: Analysis, log: EventLog) -> None:
    KernelTableBuilder(analysis, log).run()


class KernelTableBuilder:
    def __init__(self, analysis: Analysis, log: EventLog):
        self.analysis = analysis
        self.log = log
        # generated code may come from a cache filled by another checkout: its paths are read as this run's files
        self.paths = PathMapper(log.header.get("root"), log.header.get("tool_paths"), log.header.get("cwd"),
                                live_files=log.sources)
        self.lowering = _lowering_status(log)
        self.launches = _launches(log)
        self.compile_seconds = {e.get("source_key"): e.get("seconds") for e in log.other if e.get("type") == "kernel_compile"}
        self.fusion = _fusion_groups(log)
        self.spans = compile_spans.spans_by_graph(log)
        self.modules = kernel_modules.by_compile_id(log.other)
        self.aot_stacks = kernel_modules.aot_by_graph(log.other)
        self.roots: dict[GraphKey, str | None] = {}
        # parsed output code by its blob's content hash: every rank of a job generates the same code, parsed once
        self.parsed: dict[str, Any] = {}
        self.events: dict[tuple[Any, str], GraphEvents] = defaultdict(GraphEvents)
        for ev in log.torch:
            if ev.name in GRAPH_EVENTS and ev.compile_id is not None:
                self.events[(ev.rank, ev.compile_id)].by_name[ev.name].append(ev)

    def run(self) -> None:
        for graph in self.analysis.graphs:
            events = self.events.get((graph.rank, graph.compile_id))
            if events is None:
                continue
            self._graph(graph, events)
        if self.roots:
            kernel_modules.resolve_lines(self.analysis.graphs, self.analysis.sources, self.roots)

    # -- one graph -------------------------------------------------------------------------------------------------
    def _graph(self, graph: CompiledGraph, events: GraphEvents) -> None:
        codes = _output_codes(events.all("inductor_output_code"), self.parsed)
        post_grads = _post_grad_graphs(events.all("artifact:inductor_post_grad_graph", "inductor_post_grad_graph"))
        mappings = [_json(e.payload) for e in events.all("artifact:inductor_provenance_tracking_node_mappings")]
        traces = [_json(e.payload) for e in events.all("artifact:inductor_provenance_tracking_kernel_stack_traces")]
        spans = {s.role: s for s in self.spans.get(graph.key, [])}
        kernel_info = _triton_kernel_info(events.all("artifact:triton_kernel_info"))
        cache_keys = _fx_keys(events.all(*CACHE_EVENTS))
        for role, ev, parsed in codes:
            ref = ev.payload_ref or payload_hash(ev.payload or "")
            if ref not in self.analysis.code:
                self.analysis.code[ref] = lazy_code(ev)
            graph.output_code_refs[role] = ref
            handles = {c.handle for c in parsed.calls if c.handle}
            artifact = _best_match(mappings, handles, _code_to_post)
            mapping = _code_to_post(artifact)
            aot = self.aot_stacks.get((graph.rank, graph.compile_id, role))
            if aot is not None and aot.fx_key:
                graph.fx_keys[role] = aot.fx_key
            elif role in cache_keys:  # an AOTAutograd cache hit skips Inductor's compile: the FX graph key still names it
                graph.fx_keys[role] = cache_keys[role]
                aot = aot or self._aot_by_fx_key().get(cache_keys[role])
            if not mapping and aot is not None and aot.kernels:  # a lazily compiled backward: the capture's own map
                mapping = aot.kernels
            post_to_pre = artifact.get("postToPre") if isinstance(artifact.get("postToPre"), dict) else {}
            trace = _best_match(traces, handles, lambda d: d)
            module = (ev.data or {}).get("filename") or (ev.data or {}).get("file_path")
            span = spans.get(role) or (spans.get("forward") if role == "inference" else None)
            kernels = [self._kernel(call, parsed, role, mapping, trace, post_grads.get(role, []), module, kernel_info, ev)
                       for call in parsed.calls]
            modules = self.modules.get((graph.rank, graph.compile_id))
            for kernel in kernels:
                kernel_modules.attribute(kernel, modules, post_to_pre, self.paths, aot)
            self.roots[graph.key] = self.roots.get(graph.key) or kernel_modules.compiled_root_class(
                modules, [aot] if aot is not None else [])
            if span is not None:
                _attach_autotune(kernels, span.autotune)
            self._refine_from_fusion_groups(graph, role, kernels)
            graph.kernels.extend(kernels)
            self._notes(graph, role, parsed, mapping, trace, span)
        self._missing_code_notes(graph, events, {role for role, _, _ in codes})
        _stages_and_cache(graph, spans)
        forward, backward = events.last_payload("aot_forward_graph"), events.last_payload("aot_backward_graph")
        if forward or backward:
            graph.aot = aot_info(forward, backward, events.last_payload("aot_joint_graph"))

    def _aot_by_fx_key(self) -> dict[str, kernel_modules.AotStacks]:
        """The same FX graph compiled once and reused (a recompile that hit the caches) shares its node stacks."""
        return {aot.fx_key: aot for aot in self.aot_stacks.values() if aot.fx_key}

    def _kernel(self, call, parsed, role, mapping, trace, nodes, module, kernel_info, code_event) -> Kernel:
        from tdiag.analyzer import kernel_kinds, post_grad

        definition = parsed.definitions.get(call.name)
        kind, backend = kernel_kinds.classify(call, definition, parsed.device)
        kernel = Kernel(name=call.name, kind=kind, backend=backend, graph=role, out_shape=call.out_shape)
        entries = trace.get(call.handle) if call.handle and trace else None
        lines = self._source_lines(entries)
        kernel.frame = self._innermost_frame(entries)
        line_keys = {(ref.path, ref.line) for ref in lines}
        if call.handle and mapping.get(call.handle):
            kernel.fused_nodes = list(mapping[call.handle])
        elif call.source_nodes:
            kernel.fused_nodes = list(call.source_nodes)
        elif definition is not None and nodes:
            display_nodes = [post_grad.PostGradNode(n.name, n.op, self.paths.display(n.path) if n.path else None, n.line, n.code)
                             for n in nodes]
            kernel.fused_nodes = [n.name for n in post_grad.nodes_for_kernel(call.name, display_nodes, line_keys)]
        if not lines and nodes and kernel.fused_nodes:
            lines = self._lines_from_nodes(kernel.fused_nodes, nodes)
        kernel.source_lines = lines
        if definition is not None:
            ref = payload_hash(definition.source)
            if ref not in self.analysis.code:  # a slice of the output code blob, read only when shown
                self.analysis.code[ref] = lazy_code(code_event, definition.source)
            kernel.code_ref = ref
            seconds = self.compile_seconds.get(_source_key(definition.source))
            if seconds is not None:
                kernel.launch["compile_s"] = seconds
        if kind == "fallback":
            kernel.fallback_reason = self._fallback_reason(call.name)
        launch = self.launches.get((module, call.name))
        if launch:
            kernel.launch.update(launch)
        info = kernel_info.get(call.name)
        if info:
            for key, value in info.items():
                kernel.launch.setdefault(key, value)
        return kernel

    def _source_lines(self, entries: list[str] | None) -> list[SourceRef]:
        refs: list[SourceRef] = []
        seen: set[tuple[str, int]] = set()
        for entry in entries or []:
            frames = STACK_FRAME.findall(entry)
            if not frames:
                continue
            user = [f for f in frames if not self.paths.is_library(f[0]) and not self.paths.is_tool(f[0])]
            path, line, _, code = (user or frames)[-1]
            ref = SourceRef(self.paths.display(path), int(line), code.strip() or None)
            if (ref.path, ref.line) not in seen:
                seen.add((ref.path, ref.line))
                refs.append(ref)
        return refs

    def _innermost_frame(self, entries: list[str] | None) -> SourceRef | None:
        for entry in entries or []:
            frames = STACK_FRAME.findall(entry)
            if frames:
                path, line, _, code = frames[-1]
                return SourceRef(self.paths.display(path), int(line), code.strip() or None)
        return None

    def _lines_from_nodes(self, names: list[str], nodes: list[post_grad.PostGradNode]) -> list[SourceRef]:
        wanted = set(names)
        refs: dict[tuple[str, int], SourceRef] = {}
        for n in nodes:
            if n.name in wanted and n.path is not None and n.line is not None:
                path = self.paths.display(n.path)
                refs.setdefault((path, n.line), SourceRef(path, n.line, n.code))
        return list(refs.values())

    def _fallback_reason(self, name: str) -> str:
        op = name[len("torch.ops."):] if name.startswith("torch.ops.") else name
        status = self.lowering.get(op)
        if status is None:
            if op.split(".")[0] not in ("aten", "prims"):
                return FALLBACK_REASONS["implicit"]
            return "unknown (no lowering status recorded)"
        if status.get("implicit_logged"):
            return FALLBACK_REASONS["implicit"]
        if status.get("explicit"):
            return FALLBACK_REASONS["explicit"]
        if status.get("has_lowering"):
            return FALLBACK_REASONS["declined"]
        return FALLBACK_REASONS["implicit"]

    def _refine_from_fusion_groups(self, graph: CompiledGraph, role: str, kernels: list[Kernel]) -> None:
        """Deep mode: the IR classes of a fused group settle whether a C++ kernel reduces."""
        groups = self.fusion.get((graph.key, role))
        if not groups:
            return
        for kernel in kernels:
            if kernel.kind in ("extern", "fallback") or not kernel.fused_nodes:
                continue
            nodes = set(kernel.fused_nodes)
            group = next((g for g in groups if nodes <= set(g.get("origins") or [])), None)
            if group is None:
                continue
            classes = [m.get("ir") for m in group.get("members") or []]
            if "template" in classes:
                kernel.kind = "template"
            elif kernel.backend != "triton":
                kernel.kind = "reduction" if "reduction" in classes else "pointwise"

    def _notes(self, graph, role, parsed, mapping, trace, span) -> None:
        notes = graph.kernel_notes
        if parsed.calls and not parsed.has_handles:
            notes.append(f"{role}: the output code has no provenance handles (provenance tracking off): "
                         "kernels listed from call sites, user lines from the post-grad graph")
        elif parsed.has_handles and not mapping:
            notes.append(f"{role}: empty provenance node mapping (graph compiled lazily, outside Dynamo): "
                         "fused nodes inferred from kernel names and the post-grad graph")
        if parsed.has_handles and not trace:
            notes.append(f"{role}: no provenance stack traces: user lines from the post-grad graph")
        if (span is not None and span.cache_state == "hit") or graph.cache.get("fx_graph") == "hit":
            notes.append(f"{role}: FX graph cache hit: kernel table recovered from the output code re-emitted from the cache")

    def _missing_code_notes(self, graph: CompiledGraph, events: GraphEvents, roles: set[str]) -> None:
        hits = events.all("artifact:fx_graph_cache_hit")
        if hits and not roles:
            graph.kernel_notes.append("FX graph cache hit without re-emitted output code (older torch): no kernel table; "
                                      "run once with a fresh TORCHINDUCTOR_CACHE_DIR or --deep to see the kernels")
        elif events.all("aot_backward_graph") and "backward" not in roles and "forward" in roles:
            graph.kernel_notes.append("backward: no output code recorded (backward never ran, or was compiled after the "
                                      "capture ended)")


# -- helpers ---------------------------------------------------------------------------------------------------
def _output_codes(events: list[TorchEvent], parsed_by_hash: dict[str, Any] | None = None
                  ) -> list[tuple[str, TorchEvent, output_code.OutputCode]]:
    """(role, event, parsed) per role, in forward/backward/inference order; a later output code of the same role
    (a retried attempt) replaces an earlier one. ``parsed_by_hash`` keeps each parse by the code's blob hash (the
    parse is only read), so the same code recorded by many ranks is parsed once."""
    if not events:
        return []
    from tdiag.analyzer import output_code

    by_role: dict[str, tuple[TorchEvent, output_code.OutputCode]] = {}
    cache = parsed_by_hash if parsed_by_hash is not None else {}
    for index, ev in enumerate(events):
        parsed = cache.get(ev.payload_ref) if ev.payload_ref is not None else None
        if parsed is None:
            text = ev.payload
            if not text:
                continue
            parsed = output_code.parse(text)
            if ev.payload_ref is not None:
                cache[ev.payload_ref] = parsed
        role = parsed.role or ("forward" if index == 0 else "backward")
        by_role[role] = (ev, parsed)
    return [(role, *by_role[role]) for role in ROLES if role in by_role]


def _post_grad_graphs(events: list[TorchEvent]) -> dict[str, list[post_grad.PostGradNode]]:
    if not events:
        return {}
    from tdiag.analyzer import post_grad

    out: dict[str, list[post_grad.PostGradNode]] = {}
    for ev in events:
        if ev.payload:
            role = "backward" if post_grad.is_backward(ev.payload) else "forward"
            out[role] = post_grad.parse(ev.payload)
    if "forward" in out:
        out.setdefault("inference", out["forward"])
    return out


def _fx_keys(events: list[TorchEvent]) -> dict[str, str]:
    """Role -> FX graph cache key from ``fx_graph_cache_{hit,miss}`` artifacts (a backward's graph takes tangents)."""
    out: dict[str, str] = {}
    for ev in events:
        data = _json(ev.payload)
        key = data.get("key")
        if isinstance(key, str):
            role = "backward" if "tangents_" in json.dumps(data.get("components") or "") else "forward"
            out.setdefault(role, key)
    if "forward" in out:
        out.setdefault("inference", out["forward"])
    return out


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _code_to_post(mapping: dict[str, Any]) -> dict[str, list[str]]:
    """``cppCodeToPost`` on CPU, ``tritonCodeToPost`` on GPU: accept any ``*CodeToPost``."""
    for key, value in mapping.items():
        if key.endswith("CodeToPost") and isinstance(value, dict):
            return value
    return {}


def _best_match(candidates: list[dict[str, Any]], handles: set[str], keys_of) -> dict[str, Any]:
    """The artifact whose keys overlap the output code's handles most (ties: the later one)."""
    best, best_score = {}, 0
    for candidate in candidates:
        score = len(handles & set(keys_of(candidate)))
        if score and score >= best_score:
            best, best_score = candidate, score
    return best


def _source_key(source: str) -> str:
    import hashlib

    return hashlib.sha1("".join(source.split()).encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _lowering_status(log: EventLog) -> dict[str, dict[str, Any]]:
    out = {}
    for ev in log.other:
        if ev.get("type") == "lowering_info":
            for op in ev.get("ops") or []:
                if isinstance(op, dict) and op.get("op"):
                    out[op["op"]] = op
    return out


def _launches(log: EventLog) -> dict[tuple[str | None, str], dict[str, Any]]:
    out = {}
    for ev in log.other:
        if ev.get("type") != "triton_launch":
            continue
        for k in ev.get("kernels") or []:
            launchers = k.get("launchers") or []
            if launchers:
                info = dict(launchers[0])
                if len(launchers) > 1:
                    info["launchers"] = len(launchers)
                out[(k.get("module"), k.get("name"))] = info
    return out


def _fusion_groups(log: EventLog) -> dict[tuple[GraphKey, str], list[dict[str, Any]]]:
    out: dict[tuple[GraphKey, str], list[dict[str, Any]]] = defaultdict(list)
    for ev in log.other:
        if ev.get("type") == "fusion_groups" and isinstance(ev.get("compile_id"), str):
            key = GraphKey(ev.get("rank"), ev["compile_id"])  # compile ids repeat across ranks
            out[(key, ev.get("graph") or "forward")].extend(ev.get("groups") or [])
    return out


def _triton_kernel_info(events: list[TorchEvent]) -> dict[str, dict[str, Any]]:
    """GPU ``triton_kernel_info`` artifacts: per kernel name, its config and compile time (format varies by torch)."""
    out: dict[str, dict[str, Any]] = {}
    for ev in events:
        data = _json(ev.payload)
        for name, info in data.items():
            if isinstance(info, dict):
                out[name] = {k: v for k, v in info.items() if isinstance(v, (int, float, str, bool)) or v is None}
    return out


def _attach_autotune(kernels: list[Kernel], decisions: list[dict[str, Any]]) -> None:
    """Autotune decisions happen while lowering, in graph order; GEMM call sites keep that order."""
    from tdiag.analyzer import kernel_kinds

    gemms = [k for k in kernels if k.kind == "template" or kernel_kinds.is_gemm(k.name)]
    for kernel, decision in zip(gemms, decisions):
        kernel.autotune = {**decision, "matched_by": "order"}


def _stages_and_cache(graph: CompiledGraph, spans: dict[str, compile_spans.RoleSpan]) -> None:
    """Split C++/Triton kernel compile time out of codegen (the stages must still add up), and record the FX graph
    cache state of each role."""
    stages = graph.stages
    forward = spans.get("forward") or spans.get("inference")
    if forward is not None and "codegen_and_compile" in stages and forward.kernel_compile_s:
        compile_s = min(forward.kernel_compile_s, stages["codegen_and_compile"])
        stages["codegen"] = round(stages.pop("codegen_and_compile") - compile_s, 6)
        stages["kernel_compile"] = compile_s
    backward = spans.get("backward")
    if backward is not None and stages.get("backward") and backward.kernel_compile_s:
        compile_s = min(backward.kernel_compile_s, stages["backward"])
        stages["backward"] = round(stages["backward"] - compile_s, 6)
        stages["backward_kernel_compile"] = compile_s
    for role, span in spans.items():
        if span.cache_state:
            graph.cache[f"inductor_{role}"] = str(span.cache_state)
