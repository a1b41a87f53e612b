"""Reduce a finished torch.profiler run to the compact timeline the ``runtime`` event stores.

Read in-process from Kineto's raw events (``kineto_results.events()``: fast, no FunctionEvent tree). Times are
microseconds from the window start. Only what attribution needs is kept:

- ``regions``: each outermost ``Torch-Compiled Region: F/C`` on the stepping thread: compile id, start, duration,
  the time of the top-level ops inside it, and the device time of the kernels it launched (CUDA);
- ``guards``: each ``TorchDynamo Cache Lookup`` (guard evaluation) on that thread;
- ``backward``: each compiled backward (``CompiledFunctionBackward``), on any thread, with its device time;
- ``compiles``: compiles that ran inside the window (from tdiag's compile brackets); a CUDA-graph recording
  (torch brackets it with the same callbacks, trigger ``CUDAGRAPH_RECORDING``) is labelled ``recording``, never
  ``compile``, and listed in ``recordings``;
- ``kernels``: device time per kernel name (CUDA), to join with the record's kernel table by name; on CPU, the time of
  each Inductor C++ kernel where the generated code records it (``cpu_kernels``);
- ``device_time``: (CUDA) how long the device was busy (the union of its kernels, copies and sets) in the window.

Eager time is what is left of the window. It is labelled by the outermost profiler event on the stepping thread
that covers it (``eager:optimizer`` for ``Optimizer.step#...``/``zero_grad``, ``eager:backward`` for autograd's
eager backward functions on any thread, ``eager:data`` for copies and DataLoader iteration, ``eager:loss`` for loss
ops, ``eager:ops`` for other aten ops) and ``eager`` where no event covers it (Python). The analyzer attributes it
(``analyzer/runtime.py``). Only events that start inside [t0, t1) count: a partial window ends at the last step
boundary, and what ran after it is not this window's.

Input preparation (``eager:input``) is told apart by where in the step it ran, relative to the compiled calls. A step
ends where the next step's first compiled call is entered (``step_starts``), so what prepared that call's inputs runs
last in each step: after the step's last compiled code (its last compiled call, or the backward, compiled or eager,
that ran on their outputs). In that tail, from the first op that brings data in (an op that makes a tensor from no
tensor: a random or constructor op, by its schema; a DataLoader fetch; a copy to the GPU) to the step's end, every
eager op is input preparation, and so is the tail's Python (the loop's own). Ops in the tail before it ran on the
step's results (an eager loss or metric on the model's output) and keep their labels, as do the optimizer and
communication wherever they run; eager time between two compiled calls of a step is never input preparation.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any

REGION = "Torch-Compiled Region: "
CACHE_LOOKUP = "TorchDynamo Cache Lookup"
BACKWARD = "autograd::engine::evaluate_function: CompiledFunctionBackward"
GRAPH_CALL = "## Call CompiledFxGraph"
MAX_SPANS = 200_000  # a window of tiny steps is cut here, and says so


def timeline(
    profiler: Any, t0_wall: float, t1_wall: float, compiles: list[tuple[str | None, float, float, str | None]],
    cuda: bool = False, step_starts: list[float] | None = None,
) -> dict[str, Any]:
    """``step_starts``: the wall times of the step boundaries inside the window (where each later step's first compiled
    call was entered); without them no time is told apart as input preparation."""
    events = profiler.profiler.kineto_results.events()
    t0, t1 = int(t0_wall * 1e9), int(t1_wall * 1e9)
    cpu, device = [], []
    for e in events:
        (cpu if e.device_type().name == "CPU" else device).append(e)
    device = _launched_before(cpu, device, t1)
    cpu = [e for e in cpu if e.start_ns() < t1]
    step_thread = _stepping_thread(cpu)
    main = sorted((e for e in cpu if e.start_thread_id() == step_thread), key=lambda e: e.start_ns())
    regions = [_span(e) + (e.name()[len(REGION):],) for e in main if e.name().startswith(REGION)]
    lookups = [_span(e) for e in main if e.name() == CACHE_LOOKUP]
    markers = [_span(e) for e in main if e.name().startswith(GRAPH_CALL)]
    ops = [_span(e) for e in main if e.name().startswith("aten::")]
    backward = [_span(e) for e in cpu if e.name() == BACKWARD]
    kernels, launched = device_kernels(cpu, device)
    unlinked_ns = sum(ns for _, ns in kernels.values()) - sum(ns for _, ns in launched)
    if not device:
        kernels = cpu_kernels(main)

    compiled_device_ns = 0
    lookup_starts = [a for a, _ in lookups]
    region_starts = [r[0] for r in regions]
    spans: list[tuple[int, int, tuple[int, float], str, str | None]] = []  # (start, end, priority, label, compile id)
    per_graph: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "op_us": 0, "device_ns": 0})
    for depth, (start, end, cid) in _with_depth(regions):
        first_child = min(_next_start(lookup_starts, start, end), _next_start(region_starts, start, end))
        graph_end = _graph_end(start, first_child, markers, ops)
        spans.append((start, graph_end, (1, depth), "graph", cid))
        spans.append((graph_end, end, (1, depth), "after", cid))
        g = per_graph[cid]
        g["calls"] += 1
        g["op_us"] += _covered(ops, start, graph_end) // 1000
        # kernels launched by the graph's own call only: a nested frame's region counts its own, and the code after
        # the graph (a break's eager part) launches eager kernels, so each kernel lands in one graph at most
        g["device_ns"] += _device_in(launched, start, graph_end)
        compiled_device_ns += _device_in(launched, start, graph_end)
    spans += [(a, b, (1, 0.5), "backward", None) for a, b in backward]
    spans += _eager_spans(main, cpu, cuda)
    if step_starts:
        compiled_code = [(a, b) for a, b, _ in regions] + backward + [
            _span(e) for e in cpu if e.name().startswith(EAGER_BACKWARD) and e.name() != BACKWARD]
        steps = sorted({t0, t1, *(int(s * 1e9) for s in step_starts if t0 < int(s * 1e9) < t1)})
        spans += _input_preparation(list(zip(steps, steps[1:])), compiled_code, _data_sources(main, cuda))
    spans += [(a, b, (2, 0), "guard", None) for a, b in lookups]
    for cid, s, e, trigger in compiles:
        spans.append((int(s * 1e9), int(e * 1e9), (3, 0), _compile_label(trigger), cid))
    backward_device_ns = sum(_device_in(launched, a, b) for a, b in backward)
    linked_ns = sum(ns for _, ns in launched)
    totals = _sweep(spans, t0, t1)
    truncated = len(spans) > MAX_SPANS
    return {
        "graphs": {cid: {"calls": v["calls"], "op_us": v["op_us"], "device_us": v["device_ns"] // 1000} for cid, v in per_graph.items()},
        "time_us": totals,  # label -> {compile id or "": microseconds}, a partition of the window
        "backward": {"calls": len(backward), "device_us": backward_device_ns // 1000},
        "guard_calls": len(lookups),
        "compiles": [[cid, int(round((e - s) * 1e6))] for cid, s, e, trigger in compiles
                     if e > t0_wall and s < t1_wall and _compile_label(trigger) == "compile"],
        "recordings": [[cid, int(round((e - s) * 1e6))] for cid, s, e, trigger in compiles
                       if e > t0_wall and s < t1_wall and _compile_label(trigger) == "recording"],
        "kernels": {name: [calls, ns // 1000] for name, (calls, ns) in sorted(kernels.items())},
        "graph_calls": graph_call_kernels(cpu, device),
        # kernel time whose launching op was not found (it counts in no graph): a check on the link above
        "unlinked_device_us": unlinked_ns // 1000,
        "truncated": truncated,
        "collectives": collectives(cpu, device),
        **({"device_time": {
            "busy_us": _busy(device, t0) // 1000,
            # kernels launched outside compiled graphs' own calls (optimizer, loss, breaks' eager parts)
            "outside_graphs_us": max(linked_ns - compiled_device_ns - backward_device_ns, 0) // 1000,
        }} if cuda else {}),
    }


RECORDING_TRIGGER = "CUDAGRAPH_RECORDING"  # torch._dynamo.callback.CallbackTrigger: a CUDA-graph recording


def _compile_label(trigger: str | None) -> str:
    """A compile bracket's label in the window: ``recording`` for a CUDA-graph recording, ``compile`` otherwise
    (Dynamo, a lazy backward compile, Triton autotuning: all compiling)."""
    return "recording" if trigger == RECORDING_TRIGGER else "compile"


OPTIMIZER = ("Optimizer.step#", "Optimizer.zero_grad#")
DATA_LOADING = "enumerate(DataLoader)#"
DATA_OPS = frozenset(("aten::to", "aten::_to_copy", "aten::copy_", "aten::pin_memory", "aten::contiguous"))
EAGER_BACKWARD = "autograd::engine::evaluate_function: "
LOSS = ("loss", "cross_entropy", "nll_")


# Communication on the stepping thread: the c10d ops that issue a collective (and wait for it), the backends' own
# events where they run on it, and FSDP2's scopes that issue, wait for and copy out its all-gathers and reduce-scatters
# (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py). Their time outranks every other eager label: an
# all-gather waited for inside FSDP's pre-forward hook, or a reduce-scatter inside autograd's eager backward, is
# communication. FSDP's other scopes (pre/post-forward, pre/post-backward bookkeeping) are its hooks.
COMM_OPS = ("c10d::", "record_param_comms", "gloo:", "nccl:")
FSDP_COMM_SCOPES = ("FSDP::all_gather", "FSDP::post_backward_reduce", "FSDP::post_backward_rs_wait",
                    "FSDP::forward_prefetch", "FSDP::backward_prefetch", "FSDP::wait_for_unshard")
FSDP_HOOKS = ("FSDP::", "fsdp::")


def _eager_spans(main: list[Any], cpu: list[Any], cuda: bool) -> list[tuple[int, int, tuple[int, float], str, None]]:
    """What ran outside compiled code, by the outermost event covering it: below every compiled-code span, so only
    time no region, guard, compile or compiled backward covers is labelled here. Higher priority: the outer label.
    Copies count as data movement only with a GPU (on a CPU they are dtype conversions and scalar wrapping)."""
    spans = []
    for e in main:
        name = e.name()
        if name.startswith(COMM_OPS) or name.startswith(FSDP_COMM_SCOPES):
            label, prio = "eager:comm", 0.95
        elif name.startswith(FSDP_HOOKS):
            label, prio = "eager:fsdp", 0.85
        elif name.startswith(OPTIMIZER):
            label, prio = "eager:optimizer", 0.9
        elif (cuda and name in DATA_OPS) or name.startswith(DATA_LOADING):
            label, prio = "eager:data", 0.7
        elif name.startswith("aten::"):
            label, prio = ("eager:loss", 0.6) if any(k in name for k in LOSS) else ("eager:ops", 0.5)
        else:
            continue
        spans.append(_span(e) + ((0, prio), label, None))
    for e in cpu:  # eager backward runs on autograd's device threads too (CUDA): the stepping thread waits meanwhile
        if e.name().startswith(EAGER_BACKWARD) and e.name() != BACKWARD:
            spans.append(_span(e) + ((0, 0.8), "eager:backward", None))
    return spans


# Input preparation's labels: above the data, loss and op labels it takes over from the first source on, below the
# optimizer's and communication's (never input preparation); the tail's Python (no event covers it) below every label.
INPUT_FROM_SOURCE = (0, 0.87)
INPUT_PYTHON = (0, 0.05)


def _input_preparation(steps: list[tuple[int, int]], compiled_code: list[tuple[int, int]],
                       sources: list[int]) -> list[tuple[int, int, tuple[int, float], str, None]]:
    """``eager:input`` spans: in each step, the tail after its last compiled code (a compiled call or a backward that
    started in the step), its Python from the tail's start and its ops from the first data source in the tail (the
    module docstring says why). A step with no compiled code in it has no tail."""
    import bisect

    by_start = sorted(compiled_code)
    starts = [a for a, _ in by_start]
    spans = []
    for a, b in steps:
        inside = by_start[bisect.bisect_left(starts, a):bisect.bisect_left(starts, b)]
        if not inside:
            continue
        tail = max(end for _, end in inside)
        if tail >= b:
            continue
        spans.append((tail, b, INPUT_PYTHON, "eager:input", None))
        i = bisect.bisect_left(sources, tail)
        if i < len(sources) and sources[i] < b:
            spans.append((sources[i], b, INPUT_FROM_SOURCE, "eager:input", None))
    return spans


LABELLED = ("aten::", DATA_LOADING, *OPTIMIZER, *COMM_OPS, *FSDP_HOOKS)


def _data_sources(main: list[Any], cuda: bool) -> list[int]:
    """Start times (sorted) of the outermost events on the stepping thread that bring data into the step: an op that
    makes a tensor from no tensor (``makes_tensor``), a DataLoader fetch, a copy to the GPU. An op inside another
    labelled event (the empty() of a loss, an optimizer's state) is that event's."""
    out = []
    covered_until = -1
    for e in sorted(main, key=lambda e: (e.start_ns(), -e.duration_ns())):
        name = e.name()
        if not name.startswith(LABELLED):
            continue
        start, end = _span(e)
        if start < covered_until:
            continue
        covered_until = end
        if name.startswith(DATA_LOADING) or (cuda and name in DATA_OPS) or (
                name.startswith("aten::") and makes_tensor(name)):
            out.append(start)
    return out


@functools.lru_cache(maxsize=None)
def makes_tensor(op: str) -> bool:
    """Whether an aten op makes a tensor from no tensor (randn, zeros, arange, full, the empty() of torch.tensor(...)):
    one of its overloads returns a tensor and takes none (``out=`` aside), by the op's own schema, not by a list."""
    try:
        import torch

        schemas = torch._C._jit_get_schemas_for_operator(op)
    except Exception:  # an op this torch does not list: not a source
        return False
    return any(any("Tensor" in str(r.type) for r in s.returns)
               and not any("Tensor" in str(a.type) for a in s.arguments if not a.is_out) for s in schemas)


# c10d's op names (torch/csrc/distributed/c10d/Ops.cpp), the backends' event names ("gloo:all_gather",
# "nccl:_reduce_scatter_base") and NCCL's kernels ("ncclDevKernel_AllGather_RING_LL") -> the collective's kind
COLLECTIVE_KINDS = (
    ("reduce_scatter", "reduce-scatter"), ("reducescatter", "reduce-scatter"), ("allgather", "all-gather"),
    ("all_gather", "all-gather"), ("allreduce", "all-reduce"), ("all_reduce", "all-reduce"),
    ("alltoall", "all-to-all"), ("all_to_all", "all-to-all"), ("broadcast", "broadcast"), ("barrier", "barrier"),
    ("send", "send/recv"), ("recv", "send/recv"), ("reduce", "reduce"), ("gather", "gather"), ("scatter", "scatter"),
)
BACKEND_EVENTS = ("gloo:", "nccl:")
NCCL_KERNEL = "nccl"


def collective_kind(name: str) -> str:
    lowered = name.lower().replace("_base", "").replace("_coalesced", "").replace("_into_tensor", "")
    return next((kind for key, kind in COLLECTIVE_KINDS if key in lowered), "other")


def collectives(cpu: list[Any], device: list[Any]) -> dict[str, dict[str, int]]:
    """Per kind of collective: ``calls`` and ``issue_us`` (c10d ops on any thread: what the program's threads spent
    issuing, and for a synchronous one waiting), ``run_us`` (what the backend ran: gloo's worker threads and NCCL's
    host events, or NCCL's kernels on the device; it overlaps compute when the backend runs it asynchronously).
    gloo runs a reduce-scatter as an all-reduce: the issued kind and the run kind then differ, as torch named them."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "issue_us": 0, "run_us": 0})
    device_ran = False
    for e in device:
        if e.duration_ns() > 0 and e.name().lower().startswith(NCCL_KERNEL):
            out[collective_kind(e.name()[len(NCCL_KERNEL):])]["run_us"] += e.duration_ns() // 1000
            device_ran = True
    for e in cpu:
        name = e.name()
        if name.startswith("c10d::"):
            entry = out[collective_kind(name[len("c10d::"):])]
            entry["calls"] += 1
            entry["issue_us"] += e.duration_ns() // 1000
        elif name.startswith(BACKEND_EVENTS) and not device_ran:
            out[collective_kind(name.split(":", 1)[1])]["run_us"] += e.duration_ns() // 1000
    return {kind: dict(v) for kind, v in sorted(out.items())}


def _launched_before(cpu: list[Any], device: list[Any], t1: int) -> list[Any]:
    """Device activity the window's host code launched: its launching op started before ``t1``."""
    op_start = {e.correlation_id(): e.start_ns() for e in cpu if e.linked_correlation_id() == 0}
    return [e for e in device if op_start.get(e.linked_correlation_id(), e.start_ns()) < t1]


def _busy(device: list[Any], t0: int) -> int:
    """Nanoseconds in which the device ran anything (kernels, copies, sets; streams overlapping counted once)."""
    spans = sorted(_span(e) for e in device if e.duration_ns() > 0 and not e.is_user_annotation() and e.start_ns() >= t0)
    return _covered(spans, spans[0][0], spans[-1][1]) if spans else 0


def device_kernels(cpu: list[Any], device: list[Any]) -> tuple[dict[str, list[int]], list[tuple[int, int]]]:
    """Device time per kernel name, and (host time of the launching op, device ns) of every kernel, sorted.

    A kernel is linked to the PyTorch op or ``record_function`` that was innermost on the host when it was launched
    (Inductor wraps each Triton launch in one named after the kernel): the kernel's ``linked_correlation_id()`` is
    that op's ``correlation_id()``, as torch.autograd.profiler joins them for ``FunctionEvent.kernels`` (frontend
    events are the CPU events whose own linked id is 0). The op's start places the kernel in the compiled region
    that launched it; the kernel's own device timestamps cannot, they run later and overlap the next host work.
    """
    op_start = {e.correlation_id(): e.start_ns() for e in cpu if e.linked_correlation_id() == 0}
    kernels: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    launched: list[tuple[int, int]] = []
    for e in device:
        if e.duration_ns() <= 0 or e.name().startswith(("Memcpy", "Memset")) or e.is_user_annotation():
            continue
        kernels[e.name()][0] += 1
        kernels[e.name()][1] += e.duration_ns()
        host = op_start.get(e.linked_correlation_id())
        if host is not None:
            launched.append((host, e.duration_ns()))
    launched.sort()
    return kernels, launched


CPP_KERNEL = "cpp_fused_"


def cpu_kernels(main: list[Any]) -> dict[str, list[int]]:
    """CPU time per Inductor C++ kernel, where the generated code records each one: only with Inductor's
    ``cpp.enable_kernel_profile`` (``TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE=1``), which wraps every kernel in a
    ``RECORD_FUNCTION`` named after it. Without it the profiler sees no C++ kernel (they are called straight from the
    generated Python ``call``), so this is empty and the kernel table has no per-kernel time on CPU."""
    kernels: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for e in main:
        name = e.name()
        at = name.find(CPP_KERNEL)
        if at >= 0:  # recorded as graph_<n>_cpp_fused_...: the kernel table names it without the prefix
            kernels[name[at:]][0] += 1
            kernels[name[at:]][1] += e.duration_ns()
    return kernels


# -- per graph call (issue 23, kernel attribution): kept apart from the region sweep above -------------------------
def graph_call_kernels(cpu: list[Any], device: list[Any]) -> dict[str, dict[str, list[int]]]:
    """Device time of the kernels each compiled graph launched, per Inductor graph (its FX graph key, from the
    ``## Call CompiledFxGraph KEY ##`` marker around every call, forward and backward, on any thread), by launcher:
    the outermost aten op the launch happened in (the graph's call of ``aten::mm`` for an extern ``mm``'s cuBLAS
    GEMM, ``aten::_scaled_dot_product_flash_attention`` for a fallback whose kernels an inner op launched), else the
    kernel's own name (Triton, launched from the graph's code). {key: {launcher: [launches, device us]}}."""
    import bisect

    markers: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    aten: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for e in cpu:
        name = e.name()
        if name.startswith(GRAPH_CALL):
            markers[e.start_thread_id()].append((*_span(e), name[len(GRAPH_CALL):].strip(" #")))
        elif name.startswith("aten::"):
            aten[e.start_thread_id()].append((*_span(e), name))
    if not markers:
        return {}
    outer = {tid: _outermost(aten.get(tid, [])) for tid in markers}
    for spans in markers.values():
        spans.sort()
    if not device:  # a CPU run: the host time of the aten ops each call ran (extern and fallback calls; C++ kernels
        return _cpu_ops_per_call(markers, outer)  # have no profiler event of their own)
    ops = {e.correlation_id(): e for e in cpu if e.linked_correlation_id() == 0}
    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for e in device:
        if e.duration_ns() <= 0 or e.name().startswith(("Memcpy", "Memset")) or e.is_user_annotation():
            continue
        op = ops.get(e.linked_correlation_id())
        if op is None or op.start_thread_id() not in markers:
            continue
        tid, at = op.start_thread_id(), op.start_ns()
        marker = _containing(markers[tid], at, bisect)
        if marker is None:
            continue
        top = _containing(outer[tid], at, bisect)
        launcher = top[2] if top is not None and top[0] >= marker[0] else e.name()
        entry = out[marker[2]][launcher]
        entry[0] += 1
        entry[1] += e.duration_ns()
    return {key: {name: [n, ns // 1000] for name, (n, ns) in sorted(v.items())} for key, v in out.items()}


def _cpu_ops_per_call(markers: dict[int, list[tuple[int, int, str]]],
                      outer: dict[int, list[tuple[int, int, str]]]) -> dict[str, dict[str, list[int]]]:
    import bisect

    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for tid, spans in markers.items():
        ops = outer[tid]
        starts = [a for a, _, _ in ops]
        for start, end, key in spans:
            for a, b, name in ops[bisect.bisect_left(starts, start):bisect.bisect_right(starts, end)]:
                if b <= end:
                    entry = out[key][name]
                    entry[0] += 1
                    entry[1] += b - a
    return {key: {name: [n, ns // 1000] for name, (n, ns) in sorted(v.items())} for key, v in out.items()}


def _outermost(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spans not nested in an earlier one, sorted (non-overlapping)."""
    out: list[tuple[int, int, str]] = []
    for span in sorted(spans):
        if not out or span[0] >= out[-1][1]:
            out.append(span)
    return out


def _containing(spans: list[tuple[int, int, str]], at: int, bisect: Any) -> tuple[int, int, str] | None:
    """The last span of the sorted ``spans`` that starts at or before ``at`` and contains it."""
    i = bisect.bisect_right(spans, (at, float("inf"), "")) - 1
    return spans[i] if i >= 0 and spans[i][0] <= at <= spans[i][1] else None


def _span(e: Any) -> tuple[int, int]:
    return (e.start_ns(), e.start_ns() + e.duration_ns())


def _with_depth(regions: list[tuple[int, int, str]]) -> list[tuple[int, tuple[int, int, str]]]:
    """Regions nest: a frame that broke calls its resume function (and frames the break ran) inside its own region."""
    out, stack = [], []
    for r in regions:
        while stack and stack[-1] <= r[0]:
            stack.pop()
        out.append((len(stack), r))
        stack.append(r[1])
    return out


def _next_start(starts: list[int], start: int, end: int) -> int:
    """The first of the sorted ``starts`` strictly inside (start, end), else ``end``."""
    import bisect

    i = bisect.bisect_right(starts, start)
    return starts[i] if i < len(starts) and starts[i] < end else end


def _graph_end(start: int, first_child: int, markers: list[tuple[int, int]], ops: list[tuple[int, int]]) -> int:
    """Where the region's own graph call ends and the code after it (a graph break's eager part) begins.

    Inductor marks the call (``## Call CompiledFxGraph ##``): exact. Other backends have no end marker: the end of
    the last op before the first nested frame, so ops the breaking instruction ran count as graph time there.
    """
    inside = [b for a, b in markers if start <= a < first_child]
    if inside:
        return max(inside)
    import bisect

    i = bisect.bisect_left(ops, (start, -1))
    end = start
    while i < len(ops) and ops[i][0] < first_child:
        end = max(end, min(ops[i][1], first_child))
        i += 1
    return end


def _sweep(spans: list[tuple[int, int, tuple[int, float], str, str | None]], t0: int, t1: int) -> dict[str, dict[str, int]]:
    """Split [t0, t1) by the highest-priority span covering each instant; the rest is eager (outside compiled code)."""
    import heapq

    points = []
    for i, (a, b, _prio, _label, _cid) in enumerate(spans[:MAX_SPANS]):
        a, b = max(a, t0), min(b, t1)
        if a < b:
            points.append((a, 1, i))
            points.append((b, 0, i))
    points.sort()
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    heap: list[tuple[tuple[float, float], int, int]] = []
    ended: set[int] = set()
    prev = t0
    for t, kind, i in points:
        while heap and heap[0][2] in ended:
            heapq.heappop(heap)
        label, cid = (spans[heap[0][2]][3], spans[heap[0][2]][4]) if heap else ("eager", None)
        totals[label][cid or ""] += t - prev
        prev = t
        if kind == 1:
            prio = spans[i][2]
            heapq.heappush(heap, ((-prio[0], -prio[1]), i, i))
        else:
            ended.add(i)
    totals["eager"][""] += t1 - prev  # a label may be "eager:..." or "eager": both are outside compiled code
    return {label: {cid: int(round(ns / 1000)) for cid, ns in by.items()} for label, by in totals.items()}


def _stepping_thread(cpu: list[Any]) -> int | None:
    """The thread the steps run on: the one whose first event is a Dynamo cache lookup or compiled region."""
    for e in sorted(cpu, key=lambda e: e.start_ns()):
        if e.name() == CACHE_LOOKUP or e.name().startswith(REGION):
            return e.start_thread_id()
    return None


def _covered(intervals: list[tuple[int, int]], start: int, end: int) -> int:
    """Length of the union of the sorted ``intervals`` that start in [start, end), clipped to it: op time there."""
    import bisect

    i = bisect.bisect_left(intervals, (start, -1))
    total, cur_a, cur_b = 0, None, None
    while i < len(intervals) and intervals[i][0] < end:
        a, b = intervals[i][0], min(intervals[i][1], end)
        i += 1
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return total


def _device_in(launched: list[tuple[int, int]], start: int, end: int) -> int:
    import bisect

    i = bisect.bisect_left(launched, (start, -1))
    total = 0
    while i < len(launched) and launched[i][0] < end:
        total += launched[i][1]
        i += 1
    return total
