"""record -> Analysis. Pure: reads an EventLog, never torch, never the user's disk (sources come from the record)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from tdiag.analyzer import events as events_mod
from tdiag.analyzer.crash import ending, op_sites, read_crashes
from tdiag.analyzer.events import EventLog, TorchEvent
from tdiag.analyzer.model import (
    Analysis,
    CompiledGraph,
    Frame,
    FrameInfo,
    GraphBreak,
    Recompile,
    RunInfo,
    Site,
    Summary,
)
from tdiag.analyzer.paths import RESUME_NAME, PathMapper, user_function_name
from tdiag.analyzer.torch_text import (
    hit_recompile_limit,
    parse_graph_break,
    parse_guard_failure,
    parse_guard_tree,
    split_recompile_payload,
)

from tdiag import torch_events as te
from tdiag.lazy_regex import lazy_regex


def pick_hook(queue: list[dict[str, Any]], parsed) -> dict[str, Any] | None:
    """Take from ``queue`` (the break-hook events of one compile, in arrival order) the one that describes the same
    break as torch's artifact ``parsed``: its instruction is on a line of the break's stack, its code name is a
    function of that stack, its type is torch's reason. Several breaks of one compile (a restarted analysis) can
    arrive in another order than their artifacts; with nothing to tell them apart, arrival order decides."""
    if not queue:
        return None
    lines = {(f.path, f.line) for f in parsed.user_stack}
    if parsed.path and parsed.line:
        lines.add((parsed.path, parsed.line))
    functions = {f.function for f in parsed.user_stack}
    reason = (parsed.reason or "").lower()

    def agreement(hook: dict[str, Any]) -> int:
        score = 4 if (hook.get("filename"), hook.get("line")) in lines else 0
        score += 2 if (hook.get("user_code_name") or hook.get("code_name")) in functions else 0
        return score + (1 if reason and str(hook.get("gb_type") or "").lower() == reason else 0)

    best = max(range(len(queue)), key=lambda i: (agreement(queue[i]), -i))
    return queue.pop(best)


def build(record: Any, suggestions: bool = True) -> Analysis:
    """Analyse a record (run directory, event file, or an already loaded EventLog) through the stages of
    analyzer/stages.py: facts, then judgement, under one fault policy.

    ``suggestions=False`` leaves ``Finding.suggestion`` empty except where a suggestion words the finding's fix
    (analyzer/finish.py): the console summary at the end of ``tdiag run`` shows only ``Finding.fix``, the same fix as
    every other output, and need not pay for libcst and the patches of the others.
    """
    from tdiag.analyzer import stages

    log = record if isinstance(record, EventLog) else events_mod.load(record)
    builder = Builder(log)
    a = builder.analysis
    a.run = builder._run_info()  # the record's own account of the run: read before any stage, never fails on data
    a.sources = {builder.paths.display(p): text for p, text in log.sources.items()}
    facts = stages.Facts(log, a, builder.paths, patches=suggestions)
    facts.builder = builder
    stages.run(facts)
    from tdiag.analyzer.capture_health import record_limits

    record_limits(a, log)  # a record that cannot support an all-clear says why (interrupted, cut short, unreadable)
    return a


# -- the stages of analyzer/stages.py that read the record's Dynamo events ------------------------------------------
def graph_facts(facts) -> None:
    """Compiled graphs, graph breaks, recompilations and frames, in that order (each reads the one before)."""
    builder, a = facts.builder, facts.analysis
    a.graphs = builder._graphs()
    a.breaks = builder._breaks()
    a.recompiles = builder._recompiles()
    a.frames = builder._frames()


def crash_facts(facts) -> None:
    a = facts.analysis
    a.crashes = read_crashes(facts.log.crashes, facts.paths, a.recompiles)
    op_sites(a.crashes, a, facts.paths)


def summary(facts) -> None:
    a = facts.analysis
    a.summary = facts.builder._summary()
    a.summary.vs_eager = facts.get("vs_eager")


class Builder:
    def __init__(self, log: EventLog):
        self.log = log
        self.paths = PathMapper(log.header.get("root"), log.header.get("tool_paths"), log.header.get("cwd"),
                                labels=log.source_labels)
        self.analysis = Analysis()

    # -- run ------------------------------------------------------------------------------------------------------
    def _run_info(self) -> RunInfo:
        h = self.log.header
        ranks = sorted({hd.get("rank") for hd in self.log.headers if hd.get("rank") is not None})
        exit_event = self.log.exits.get(h.get("rank")) if len(self.log.headers) == 1 else None
        info = RunInfo(
            argv=[str(a) for a in h.get("argv") or []],
            tdiag_version=h.get("tdiag"),
            torch_version=h.get("torch"),
            python_version=h.get("python"),
            device=h.get("device"),
            platform=h.get("platform"),
            started=h.get("started"),
            ranks=ranks,
            hosts={hd["rank"]: hd["host"] for hd in self.log.headers if hd.get("rank") is not None and "host" in hd},
            incomplete_ranks=[r for r in self.log.truncated_ranks if r is not None],
            notes=list(self.log.notes),
            record_problems=list(self.log.problems),
            source=h.get("source", "tdiag run"),
        )
        info.command = " ".join(["tdiag run", *info.argv]) if info.source == "tdiag run" else info.source
        if exit_event is not None:
            info.device = exit_event.get("device") or info.device  # named at exit once the program initialised CUDA
            info.exit_code = exit_event.get("code")
            info.exit_reason = exit_event.get("reason")
            info.duration_s = exit_event.get("duration_s")
            info.complete = True
        elif len(self.log.headers) > 1:
            info.complete = not self.log.truncated_ranks
        else:
            info.exit_reason = "unknown"
            if info.source == "tdiag run":
                info.record_problems.append("the record has no exit event: the program was killed or os._exit() was called")
            else:
                info.record_problems.append("the trace ends before the process did: it was cut short")
        from tdiag.analyzer.capture_health import capture_problems

        from tdiag.torch_releases import untested_notice

        info.capture_problems = capture_problems(self.log)
        info.torch_notice = untested_notice(h.get("torch"), h.get("torch_tested"))
        unknown = {k.split(":", 1)[1]: v for k, v in self.log.stats.items() if k.startswith("unknown:")}
        if unknown:
            info.record_problems.append(
                "unknown event types kept but not analysed: " + ", ".join(f"{k} ({v})" for k, v in sorted(unknown.items()))
            )
        return info

    # -- compiled graphs ------------------------------------------------------------------------------------------
    def _graphs(self) -> list[CompiledGraph]:
        # Keyed by (rank, compile id): every rank numbers its compiles from 0/0.
        guards: dict[tuple[Any, str | None], TorchEvent] = {}
        graph_code: dict[tuple[Any, str | None], TorchEvent] = {}
        cache: dict[tuple[Any, str | None], dict[str, str]] = defaultdict(dict)
        bwd: dict[tuple[Any, str | None], dict[str, Any]] = {}
        for ev in self.log.torch:
            key = (ev.rank, ev.compile_id)
            if ev.name in (te.DYNAMO_CPP_GUARDS_STR, te.DYNAMO_GUARDS):
                guards[key] = ev
            elif ev.name == te.DYNAMO_OUTPUT_GRAPH:
                graph_code[key] = ev
            elif ev.name in te.CACHE_RESULTS:
                stage, state = te.CACHE_RESULTS[ev.name]
                cache[key][stage] = state
            elif ev.name == te.BWD_COMPILATION_METRICS:
                bwd[key] = ev.data
        graphs = []
        for ev in self.log.named(te.COMPILATION_METRICS):
            m = ev.data
            cid = str(m.get("compile_id") or ev.compile_id)
            key = (ev.rank, cid)
            frame_id, _, fcid = cid.rpartition("/")
            g = CompiledGraph(
                compile_id=cid,
                frame_id=_int(frame_id.lstrip("!").split("/")[-1]),
                frame_compile_id=_int(fcid),
                code_name=str(m.get("co_name") or "?"),
                path=self.paths.display(_str(m.get("co_filename"))),
                line=_int(m.get("co_firstlineno")),
                op_count=_int(m.get("graph_op_count")),
                node_count=_int(m.get("graph_node_count")),
                input_count=_int(m.get("graph_input_count")),
                guard_count=_int(m.get("guard_count")),
                compile_time_s=_float(m.get("entire_frame_compile_time_s")),
                fail_type=_str(m.get("fail_type")),
                fail_reason=_str(m.get("fail_reason")),
                restart_reasons=[str(r) for r in _list(m.get("restart_reasons")) if r],
                start_time=m.get("start_time") if isinstance(m.get("start_time"), (int, float)) else None,
                cache=dict(cache.get(key, {})),
                rank=ev.rank,
            )
            g.stages = _stages(m, bwd.get(key))
            g.compile_time_s += g.stages.get("backward", 0.0)
            if g.fail_type:
                g.status = "failed"
            elif not m.get("has_guarded_code", True) or (g.op_count == 0 and key not in graph_code):
                g.status = "empty"
            if key in guards:
                g.guards = parse_guard_tree(guards[key].payload)
                for guard in g.guards:
                    guard.function = user_function_name(guard.function)
            g.code_name = compiled_name(g.code_name, g.path, g.guards, self.paths.is_library(_str(m.get("co_filename")) or ""))
            if key in graph_code:
                g.graph_code_ref = self._store_code(graph_code[key])
            graphs.append(g)
        _name_from_frame(graphs)
        logged = {(g.rank, te.without_attempt(g.compile_id)) for g in graphs}
        return graphs + self._graphs_without_metrics(graph_code, logged, cache)

    def _graphs_without_metrics(self, graph_code, seen, cache) -> list[CompiledGraph]:
        """Graphs Dynamo output whose compilation metrics torch failed to log: torch 2.11 raises while writing its
        config when ``ignore_logging_functions`` holds a function (capture_health.py names the gap). The graph is
        still counted, named from the frame's ``dynamo_start``; its compile time and guards are unknown."""
        starts = {(ev.rank, ev.compile_id): ev for ev in self.log.named(te.DYNAMO_START)}
        names = self._interned_names()
        out = []
        for key, ev in graph_code.items():
            if key[1] is None or (key[0], te.without_attempt(key[1])) in seen:
                continue
            frame_id, _, fcid = key[1].rpartition("/")
            stack = (starts.get(key).data.get("stack") if key in starts else None) or [{}]
            top = stack[-1] if isinstance(stack[-1], dict) else {}
            filename = names.get((key[0], top.get("filename")), "") if isinstance(top.get("filename"), int) else ""
            g = CompiledGraph(compile_id=key[1], frame_id=_int(frame_id.lstrip("!").split("/")[-1]),
                              frame_compile_id=_int(fcid), code_name=str(top.get("name") or "?"),
                              path=self.paths.display(filename), line=_int(top.get("line")),
                              cache=dict(cache.get(key, {})), rank=key[0])
            g.graph_code_ref = self._store_code(ev)
            out.append(g)
        return out

    def _store_code(self, ev: TorchEvent) -> str | None:
        text = ev.payload
        if text is None:
            return None
        from tdiag.record import payload_hash

        ref = ev.payload_ref or payload_hash(text)
        if ref not in self.analysis.code:
            self.analysis.code[ref] = events_mod.lazy_code(ev)
        return ref

    # -- graph breaks ---------------------------------------------------------------------------------------------
    def _breaks(self) -> list[GraphBreak]:
        sites_by_cid: dict[tuple[Any, str | None], list[dict[str, Any]]] = defaultdict(list)
        for s in self.log.break_sites:
            sites_by_cid[(s.get("rank"), s.get("compile_id"))].append(s)
        failed = {(g.rank, g.compile_id): g for g in self.analysis.graphs if g.status == "failed"}
        starts = {(ev.rank, ev.compile_id): ev for ev in self.log.named(te.DYNAMO_START)}
        out = []
        for ev in self.log.named(te.GRAPH_BREAK_REASON):
            text = ev.payload or ""
            parsed = parse_graph_break(text)
            cid = ev.compile_id or "?"
            hook = pick_hook(sites_by_cid.get((ev.rank, cid)) or [], parsed)
            gb = self._graph_break(cid, parsed, hook, text, failed.get((ev.rank, cid)), starts.get((ev.rank, cid)))
            gb.rank = ev.rank
            out.append(gb)
        return out

    def _graph_break(self, cid: str, parsed, hook: dict[str, Any] | None, text: str, failed_graph, start=None) -> GraphBreak:
        stack = [
            Frame(self.paths.display(f.path), f.line, user_function_name(f.function) or "?", f.code, not self.paths.is_library(f.path))
            for f in parsed.user_stack
            if not self.paths.is_tool(f.path)
        ]
        if not stack and parsed.path:
            stack = [Frame(self.paths.display(parsed.path), parsed.line or 0, "?", None, not self.paths.is_library(parsed.path))]
        user = next((f for f in reversed(stack) if f.is_user), None)
        library = stack[-1] if stack and not stack[-1].is_user else None
        site_frame = user or (stack[-1] if stack else Frame("<unknown>", 0, "?"))
        site = Site(site_frame.path, site_frame.line, function=site_frame.function)
        entry = self._call_site(start) if user is None else None
        if entry is not None:  # the whole stack is library code (a compiled library module): the user's call
            site = entry
        gb = GraphBreak(
            compile_id=cid,
            reason=parsed.reason or (hook or {}).get("gb_type") or "graph break",
            site=site,
            gb_id=parsed.gb_id,
            gb_url=parsed.gb_url,
            explanation=parsed.explanation.strip(),
            hints=parsed.hints,
            context=parsed.context,
            user_stack=stack,
            library_frame=library,
            # torch's internal traceback dropped; tdiag's own frames too (they are not in the user's program)
            raw=self.paths.without_tool_frames(text.split("\nTraceback (most recent call last)", 1)[0].rstrip()),
        )
        if hook is not None:
            gb.code_name = hook.get("user_code_name") or hook.get("code_name")
            if hook.get("gb_type") and not parsed.reason:
                # torch's logged type names the cause; the hook's can be a follow-up ("graph break in loop")
                gb.reason = str(hook["gb_type"])
            hook_key = (self.paths.display(hook.get("filename")), hook.get("line"))
            # The hook sees the instruction of the frame Dynamo was tracing: the site itself, or for a break in
            # an inlined call, the CALL in an outer user frame. Either way it is an instruction of the user's code.
            if any((f.path, f.line) == hook_key for f in stack) or library is not None:
                gb.offset, gb.opname = hook.get("offset"), hook.get("opname")
            if hook_key == site.key and hook.get("col") is not None:
                site.column = int(hook["col"]) + 1
                site.end_column = int(hook["end_col"]) + 1 if hook.get("end_col") is not None else None
        if failed_graph is not None:
            gb.frame_skipped = True
            gb.code_name = gb.code_name or failed_graph.code_name  # the frame it skipped (no hook saw this one)
        return gb

    # -- recompilations -------------------------------------------------------------------------------------------
    def _recompiles(self) -> list[Recompile]:
        graphs = {(g.rank, g.compile_id): g for g in self.analysis.graphs}
        starts = {(ev.rank, ev.compile_id): ev for ev in self.log.named(te.DYNAMO_START)}
        out = []
        for ev in self.log.named(te.RECOMPILE_REASONS):
            cid = ev.compile_id or "?"
            g = graphs.get((ev.rank, cid))
            failures = []
            for item in split_recompile_payload(ev.payload):
                failure = parse_guard_failure(item)
                failure.path = self.paths.display(failure.path) if failure.path else None
                failures.append(failure)
            out.append(
                Recompile(
                    compile_id=cid,
                    frame_id=_int(ev.meta.get("frame_id")),
                    code_name=user_function_name(g.code_name) if g else "?",
                    path=g.path if g else "<unknown>",
                    line=g.line if g else 0,
                    failures=failures,
                    call_site=self._call_site(starts.get((ev.rank, cid))),
                    time=ev.t,
                    rank=ev.rank,
                )
            )
        entered = {}
        for r in out:  # a compile whose start held no user caller is entered where its frame's other compiles were
            if r.call_site is None:
                r.call_site = entered.get((r.rank, r.frame_id))
            else:
                entered.setdefault((r.rank, r.frame_id), r.call_site)
        return out

    def _call_site(self, start: TorchEvent | None) -> Site | None:
        """The user line that entered torch.compile for this frame: where mark_dynamic & co. belong.

        Frames resumed after a graph break sit below their parent's compiled code on the stack, so the entry is the
        last user frame before the first torch.compile wrapper frame, not simply the caller. For a function's own
        frame, the direct caller in the stack the capture took when the compile started (the interpreter's) comes
        first: torch's own drops it (tracer/progress.py ``caller_stack``).
        """
        if start is None:
            return None
        stack = start.data.get("stack")
        compiled = stack[-1].get("name") if isinstance(stack, list) and stack and isinstance(stack[-1], dict) else None
        caller = self._bracket_stacks().get((start.rank, start.compile_id))
        # A function's own frame only: a resumed frame is entered from its parent's compiled code (the line that
        # called the parent is its entry, below), and a caller inside a library (a module's __call__, an
        # optimizer's wrapper) is no user line: torch's stack says more there.
        if caller and isinstance(compiled, str) and not RESUME_NAME.match(compiled):
            for path, line, name in reversed(caller):
                if self.paths.is_tool(path):
                    continue  # tdiag's own wrapper around compiled calls (the runtime window)
                if not self.paths.is_library(path):
                    return Site(self.paths.display(path), line, function=name)
                break
        names = self._interned_names()
        frames = []
        for entry in stack if isinstance(stack, list) else []:
            if not isinstance(entry, dict):
                continue
            fn = entry.get("filename")
            path = names.get((start.rank, fn)) if isinstance(fn, int) else fn
            if not isinstance(path, str):
                continue  # an interned name the record never saw: no location rather than a wrong one
            frames.append((path, _int(entry.get("line")), _str(entry.get("name"))))
        return self._entry_site(frames)

    def _entry_site(self, frames: list[tuple[str, int, str | None]]) -> Site | None:
        """``frames``: torch's stack for a compile, outermost first, the compiled function last."""
        entry_index = next((i for i, f in enumerate(frames) if f[0].replace("\\", "/").endswith("_dynamo/eval_frame.py")), None)
        candidates = frames[:entry_index] if entry_index is not None else frames[:-1]
        for path, line, name in reversed(candidates):
            if not self.paths.is_library(path) and not self.paths.is_tool(path):
                return Site(self.paths.display(path), line, function=name)
        return None

    def _bracket_stacks(self) -> dict[tuple[Any, str], list[tuple[str, int, str | None]]]:
        """(rank, compile id) -> the caller stack tdiag's compile-start callback took, outermost first."""
        if not hasattr(self, "_brackets"):
            self._brackets = {}
            for b in self.log.compile_brackets:
                stack = b.get("stack")
                if b.get("type") != "compile_start" or not isinstance(stack, list) or not isinstance(b.get("compile_id"), str):
                    continue
                frames = [(e["filename"], _int(e.get("line")), _str(e.get("name"))) for e in stack
                          if isinstance(e, dict) and isinstance(e.get("filename"), str)]
                self._brackets.setdefault((b.get("rank"), b["compile_id"]), frames)
        return self._brackets

    def _interned_names(self) -> dict[tuple[Any, int], str]:
        """(rank, index) -> file name: each process interns its own file names."""
        if not hasattr(self, "_names"):
            self._names = {}
            for ev in self.log.named(te.STR):
                value = ev.meta.get("str")
                if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], int):
                    self._names[(ev.rank, value[1])] = value[0]
        return self._names

    # -- frames ---------------------------------------------------------------------------------------------------
    def _frames(self) -> list[FrameInfo]:
        frames: dict[tuple[int | None, int], FrameInfo] = {}
        entries: dict[tuple[int | None, int], Site] = {}  # the first user line seen entering each frame
        for ev in self.log.named(te.DYNAMO_START):
            key = (ev.rank, _int(ev.meta.get("frame_id")))
            if key not in entries:
                site = self._call_site(ev)
                if site is not None:
                    entries[key] = site
        for g in self.analysis.graphs:
            key = (g.rank, g.frame_id)
            f = frames.get(key)
            if f is None:
                f = frames[key] = FrameInfo(g.frame_id, user_function_name(g.code_name) or "?", g.path, g.line, rank=g.rank)
                f.call_site = entries.get(key)
            f.variants.append(g.compile_id)
            if hit_recompile_limit(g.fail_reason):
                f.hit_recompile_limit = True
        for r in self.analysis.recompiles:
            f = frames.get((r.rank, r.frame_id))
            if f is not None:
                f.recompiles += 1
        for ev in self.log.named(te.CREATE_SYMBOL):
            d = ev.data
            source = str(d.get("source") or "")
            f = frames.get((ev.rank, _int(ev.meta.get("frame_id"))))
            # Resume-function arguments (___stack0) are Dynamo's own plumbing, not inputs the user can mark.
            if f is None or not source or "___stack" in source:
                continue
            decision = f"{source} -> dynamic"
            if decision not in f.automatic_dynamic:
                f.automatic_dynamic.append(decision)
        return list(frames.values())

    # -- summary --------------------------------------------------------------------------------------------------
    def _summary(self) -> Summary:
        a = self.analysis
        kinds = Counter(k.kind for g in a.graphs for k in g.kernels)
        return Summary(
            # graphs Dynamo captured (torch's dynamo_output_graph), one whose backend then failed included: that
            # failure is counted in eager_fallbacks and reported as CMP003
            graphs=sum(1 for g in a.graphs if g.status in ("ok", "failed") and g.graph_code_ref is not None),
            graph_breaks=len(a.breaks),
            break_sites=len({b.site.key for b in a.breaks}),
            recompiles=len(a.recompiles),
            frames_compiled=len(a.graphs),
            eager_fallbacks=sum(1 for g in a.graphs if g.status == "failed"),
            compile_time_s=round(sum(g.compile_time_s for g in a.graphs), 6),
            kernels_by_kind=dict(sorted(kinds.items())),
            findings_by_severity=dict(Counter(f.severity for f in a.findings)),
            crash=ending(a.crashes),
            compile_cache=a.summary.compile_cache,  # set by attach_compile_cache, before the rules
        )


def _stages(m: dict[str, Any], bwd: dict[str, Any] | None) -> dict[str, float]:
    total = _float(m.get("entire_frame_compile_time_s"))
    backend = _float(m.get("backend_compile_time_s"))
    stages = {"dynamo": max(total - backend, 0.0)}
    inductor = m.get("inductor_compile_time_s")
    if isinstance(inductor, (int, float)):
        codegen = _float(m.get("code_gen_time_s"))
        stages["aot_autograd"] = max(backend - inductor, 0.0)
        stages["inductor"] = max(inductor - codegen, 0.0)
        stages["codegen_and_compile"] = codegen
    elif backend:
        stages["backend"] = backend
    if bwd:
        bwd_time = bwd.get("inductor_compile_time_s") or bwd.get("entire_frame_compile_time_s")
        if bwd_time:
            stages["backward"] = _float(bwd_time)
    return {k: round(v, 6) for k, v in stages.items()}


def _int(v: Any) -> int:
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(float("inf")) from a damaged record
        return 0


def _float(v: Any) -> float:
    """A duration from torch's metrics; anything that is not a finite number (damaged record) counts as 0."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return 0.0
    v = float(v)
    return v if v == v and abs(v) != float("inf") else 0.0


def _str(v: Any) -> str | None:
    return None if v is None else str(v)


def _list(v: Any) -> list:
    """A list from torch's metrics; anything else (a damaged record) is empty."""
    return v if isinstance(v, list) else []


# Frames Dynamo compiles on the user's behalf: torch's wrapper around a module call (`inner` in external_utils.py
# when the module has hooks) and library forward methods are named after the object the user compiled.
_WRAPPED_SELF = lazy_regex(r"""^(?:___check_type_id|___check_obj_id)\(L\['(fn|self)'\].*type=<class '([\w.]+)'>""")
TORCH_WRAPPERS = {"inner", "_fn", "_call_impl", "_wrapped_call_impl"}
# Decorators libraries put around forward (transformers' `can_return_tuple` / `auto_docstring` make `wrapper`).
DECORATOR_NAMES = {"wrapper", "wrapped", "_wrapper", "inner", "decorated", "new_forward", "forward_wrapper"}


def compiled_name(code_name: str, path: str, guards, is_library: bool) -> str:
    """``Sequential.forward`` for torch's ``inner`` wrapper around a compiled ``nn.Sequential``; ``BertModel.forward``
    for a library ``forward``; the code name itself for the user's own functions."""
    if not is_library or code_name.startswith("torch_dynamo_resume_in_"):
        return code_name
    for guard in guards:
        m = _WRAPPED_SELF.match(guard.text)
        if m is None:
            continue
        cls = m.group(2).rsplit(".", 1)[-1]
        if m.group(1) == "fn" and code_name in TORCH_WRAPPERS:
            return f"{cls}.forward"
        if m.group(1) == "self":
            return f"{cls}.forward" if code_name in DECORATOR_NAMES else f"{cls}.{code_name}"
    return code_name


def _name_from_frame(graphs: list[CompiledGraph]) -> None:
    """A compile whose metrics name no code (the one that hit the recompile limit: torch stops before it reads the
    frame) takes its function's name and place from another compile of the same frame."""
    named = {}
    for g in graphs:
        if g.code_name != "?" and g.path:
            named.setdefault((g.rank, g.frame_id), g)
    for g in graphs:
        other = named.get((g.rank, g.frame_id)) if g.code_name == "?" or not g.path else None
        if other is not None:
            g.code_name, g.path, g.line = other.code_name, other.path, other.line
