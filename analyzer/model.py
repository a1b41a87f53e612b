"""The Analysis: the one model every output reads (console, lint, JSON, HTML, TUI, diff).

Plain dataclasses, no torch, no rendering libraries. ``Analysis.to_dict()`` is the documented JSON export
(``tdiag report --format json``, schema version ``SCHEMA_VERSION``); ``Analysis.from_dict()`` reads it back.
Paths are display paths: relative to the project root for user files, ``<site-packages>/...`` for libraries.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import types
import typing
from dataclasses import field
from typing import Any

from tdiag.analyzer.compile_cache import CacheCounts, CacheOutcome, CompileCacheSummary  # noqa: F401 (schema types)
from tdiag.analyzer.evidence import Evidence, OtherEvidence, evidence_class

from tdiag.lean_dataclass import lean_dataclass

# 2: Finding.evidence is typed (a "kind" discriminator, see evidence.py); GraphKey (Finding.graph_keys)
SCHEMA_VERSION = 2

SEVERITIES = ("error", "warning", "info")  # ranked: error first
SEVERITY_RANK = {name: i for i, name in enumerate(SEVERITIES)}


@lean_dataclass(frozen=True)
class GraphKey:
    """Names one compiled graph: compile ids ("0/0") repeat across ranks, so every lookup carries the rank too.
    ``rank`` is None for single-process runs."""

    rank: int | None
    compile_id: str

    @property
    def label(self) -> str:
        return self.compile_id if self.rank is None else f"{self.compile_id} (rank {self.rank})"

    def __lt__(self, other: GraphKey) -> bool:  # None (single process) first, compile ids numerically
        return _graph_key_order(self) < _graph_key_order(other)


def _graph_key_order(key: GraphKey) -> tuple:
    return (-1 if key.rank is None else key.rank, tuple(int(p) for p in re.findall(r"\d+", key.compile_id)), key.compile_id)


@lean_dataclass
class Frame:
    """One frame of a stack, as the user would read it."""

    path: str
    line: int
    function: str
    code: str | None = None
    is_user: bool = True


@lean_dataclass
class Site:
    """A place in user code. ``column``/``end_column`` are 1-based, as editors and ruff show them."""

    path: str
    line: int
    column: int | None = None
    end_column: int | None = None
    function: str | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.path, self.line)


@lean_dataclass
class GraphBreak:
    """One graph-break event, as torch logged it, mapped to the user's line."""

    compile_id: str
    reason: str  # torch's graph-break type (gb_type), e.g. "Data-dependent branching"
    site: Site
    gb_id: str | None = None  # "GB0170"
    gb_url: str | None = None
    explanation: str = ""
    hints: list[str] = field(default_factory=list)
    context: str = ""  # torch's developer debug context
    user_stack: list[Frame] = field(default_factory=list)
    library_frame: Frame | None = None  # where it broke, when that is inside a library
    code_name: str | None = None  # the code object being traced (may be a resume function)
    offset: int | None = None  # bytecode offset in the user's original code object
    opname: str | None = None
    frame_skipped: bool = False  # Dynamo gave up on the whole frame (e.g. break in a loop)
    raw: str = ""
    rank: int | None = None


@lean_dataclass
class Guard:
    """One guard of a compiled graph, as Dynamo printed it."""

    kind: str  # TENSOR_MATCH, ID_MATCH, EQUALS_MATCH, ...
    text: str
    source: str | None = None  # the user source line torch attributes the guard to
    path: str | None = None
    line: int | None = None
    function: str | None = None


@lean_dataclass
class GuardFailure:
    """Why one existing cache entry did not match when a frame was recompiled."""

    entry: str  # compile id of the cache entry whose guard failed, e.g. "0/0"
    text: str  # torch's reason, e.g. "tensor 'x' size mismatch at index 0. expected 4, actual 8"
    kind: str  # size, stride, dtype, device, requires_grad, value, identity, type, training, length, other
    subject: str | None = None  # the guarded name: "x", "L['k']", "self.training"
    dim: int | None = None
    expected: str | None = None
    actual: str | None = None
    source: str | None = None
    path: str | None = None
    line: int | None = None
    hint: str | None = None  # torch's own hint on the guard ("(HINT: ... allow_unspec_int_on_nn_module ...)")
    # not in torch's log (it reports the first failing guard of an entry): a value guard of the failed entry that
    # the new compile guards to another value (analyzer/guard_diff.py)
    hidden: bool = False


@lean_dataclass
class Recompile:
    """A recompilation: the new compile and the guard failures that caused it."""

    compile_id: str  # the new compile that the failures caused
    frame_id: int
    code_name: str
    path: str
    line: int
    failures: list[GuardFailure] = field(default_factory=list)
    call_site: Site | None = None  # the user line that called the recompiled frame
    time: float | None = None
    rank: int | None = None
    # the entry's other guards that failed at this recompile, read from the two compiles' guards (guard_diff.py):
    # a second cause behind the one torch logged
    hidden_failures: list[GuardFailure] = field(default_factory=list)


@lean_dataclass
class SourceRef:
    """A source line (path, line, its text when recorded)."""

    path: str
    line: int
    code: str | None = None


@lean_dataclass
class Kernel:
    """One kernel or extern call of a compiled graph, in execution order."""

    name: str
    kind: str  # pointwise, reduction, persistent_reduction, template, foreach, extern, fallback
    backend: str  # triton, cpp, cublas, mkl, onednn, aten, custom_op, ...
    graph: str = "forward"  # forward, backward, inference
    fused_nodes: list[str] = field(default_factory=list)
    source_lines: list[SourceRef] = field(default_factory=list)
    fallback_reason: str | None = None  # explicit (make_fallback), implicit (no lowering), unsupported dtype/device
    code_ref: str | None = None  # hash into Analysis.code
    launch: dict[str, Any] = field(default_factory=dict)  # num_warps, num_stages, n_regs, n_spills, shared, ...
    autotune: dict[str, Any] | None = None
    device_s: float | None = None  # measured in the runtime window: device time of kernels of this name (CUDA)
    # the nn.Module the kernel's nodes came from: fully qualified name under the compiled module ("encoder.layers.3.mlp",
    # "" = the compiled module itself; several modules fused: their common ancestor), and that module's class
    module: str | None = None
    module_class: str | None = None
    frame: SourceRef | None = None  # innermost frame (may be a library file, e.g. Linear.forward); source_lines: user's
    out_shape: list[int] | None = None  # an extern call's output sizes, when static (e.g. a GEMM's [M, N])
    # every module whose nodes the kernel computes, in node order (a fused kernel names each layer it fused); a backward
    # kernel names the forward modules it differentiates
    modules: list[KernelModule] = field(default_factory=list)


@lean_dataclass
class KernelModule:
    """One module a kernel computes: its path under the compiled module, class, and the user's line that built it."""

    path: str  # "" = the compiled module itself
    cls: str
    built_at: SourceRef | None = None  # the user's line: `self.fc1 = nn.Linear(...)`, or the argument of nn.Sequential(...)
    built_by: str | None = None  # how it was resolved: "attribute", "argument", "root" (the library model's own line)


@lean_dataclass
class AotInfo:
    """What AOTAutograd did with a graph: a backward, and the tensors saved for it."""

    has_backward: bool = False
    saved_tensors: int = 0
    saved_shapes: list[str] = field(default_factory=list)
    saved_bytes: int | None = None
    joint_nodes: int | None = None
    forward_nodes: int | None = None
    backward_nodes: int | None = None


@lean_dataclass
class CudaGraphSkip:
    """One reason torch gave for running a graph without CUDA graphs ("skipping cudagraphs due to ...")."""

    kind: str  # mutated_input, cpu_device, incompatible_op, dynamic_graph, rerecord_limit, non_tensor_input, ...
    reason: str  # torch's reason, without "skipping cudagraphs due to" and without the stack trace
    op: str | None = None  # the node or op torch named, e.g. "arg1_1", "aten._local_scalar_dense.default"
    site: Site | None = None  # the user line from torch's "Found from" stack trace
    code: str | None = None  # that line's source, as torch quoted it
    at: str = "compile"  # compile (decided while compiling) or run (decided when the graph first ran)
    text: str = ""  # torch's whole message


@lean_dataclass
class CudaGraphRecording:
    """One CUDA graph recording of a compiled graph (the first, or a re-recording)."""

    mode: str | None = None  # FORWARD, BACKWARD, INFERENCE
    inputs: list[str] = field(default_factory=list)  # input sizes, e.g. "[16, 64]", as torch logged them
    symint_key: str | None = None  # the symbolic sizes it was recorded for (dynamic graphs)


@lean_dataclass
class CudaGraphInfo:
    """What happened to one compiled graph under ``mode="reduce-overhead"``."""

    status: str = "unknown"  # recorded, skipped, partial (recorded, and skipped for a part or later), unknown
    skips: list[CudaGraphSkip] = field(default_factory=list)
    recordings: list[CudaGraphRecording] = field(default_factory=list)


@lean_dataclass
class DdpBucket:
    """One DDPOptimizer subgraph: the gradient bucket it was cut at (torch/_dynamo/backends/distributed.py)."""

    name: str  # submod_0, submod_1, ... in execution order
    params: list[str] = field(default_factory=list)  # parameter names, e.g. "layers.0.weight"
    bytes: int | None = None  # parameter bytes, from the shapes in the subgraph's signature
    lines: list[SourceRef] = field(default_factory=list)  # user lines of the ops in this subgraph


@lean_dataclass
class CompiledGraph:
    """One frame compilation (a Dynamo graph and what the backend made of it)."""

    compile_id: str
    frame_id: int
    frame_compile_id: int
    code_name: str
    path: str
    line: int
    status: str = "ok"  # ok, failed, skipped (ran eagerly), empty (no graph)
    op_count: int = 0
    node_count: int = 0
    input_count: int = 0
    guard_count: int = 0
    guards: list[Guard] = field(default_factory=list)
    compile_time_s: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)  # dynamo, aot, inductor, codegen, ... seconds
    cache: dict[str, str] = field(default_factory=dict)  # fx_graph: hit|miss|bypass, aotautograd: ...
    cache_outcomes: list[CacheOutcome] = field(default_factory=list)  # every cache lookup (analyzer/compile_cache.py)
    fail_type: str | None = None
    fail_reason: str | None = None
    restart_reasons: list[str] = field(default_factory=list)  # why Dynamo restarted tracing (torch's words)
    start_time: float | None = None
    graph_code_ref: str | None = None  # Dynamo's FX graph (readable), hash into Analysis.code
    output_code_refs: dict[str, str] = field(default_factory=dict)  # forward/backward/inference -> hash
    fx_keys: dict[str, str] = field(default_factory=dict)  # role -> Inductor's FX graph key (names its calls in a profile)
    kernels: list[Kernel] = field(default_factory=list)
    kernel_notes: list[str] = field(default_factory=list)  # e.g. "cache hit: kernel table recovered from output code"
    aot: AotInfo | None = None
    rank: int | None = None
    runtime: GraphRuntime | None = None  # measured in the runtime window; None when not measured
    cudagraph: CudaGraphInfo | None = None  # set where CUDA graphs were requested (mode="reduce-overhead")
    ddp_buckets: list[DdpBucket] = field(default_factory=list)  # DDPOptimizer's split of this graph, if any

    @property
    def key(self) -> GraphKey:
        return GraphKey(self.rank, self.compile_id)


@lean_dataclass
class FrameInfo:
    """A user function Dynamo compiled, with the chain of its compiled variants."""

    frame_id: int
    code_name: str
    path: str
    line: int
    variants: list[str] = field(default_factory=list)  # compile ids in order
    recompiles: int = 0
    hit_recompile_limit: bool = False
    automatic_dynamic: list[str] = field(default_factory=list)  # e.g. "L['x'] dim 0 -> dynamic"
    rank: int | None = None
    call_site: Site | None = None  # the user line that entered torch.compile for this frame (first compile seen)


@lean_dataclass
class Suggestion:
    """A fix worded as code: a title, why, a patch against the recorded source, alternatives."""

    title: str
    why: str = ""
    patch: str | None = None  # unified diff against the recorded source
    patch_note: str | None = None  # why no patch is offered (e.g. "source changed since the record")
    alternatives: list[str] = field(default_factory=list)
    fix: str | None = None  # the one-line fix it words for the finding (analyzer/finish.py); None: the rule's stays
    # other patches for the same finding, in the order `tdiag fix --verify` tries them when this one does not verify
    # and pay (the optimizer's implementations: which is fastest is measured, never assumed)
    candidates: list[Suggestion] = field(default_factory=list)
    # the patch compiles more code by design (the compiled optimizer step: its own graphs, and torch's deliberate
    # break before the step): `tdiag fix --verify` does not count those graphs and breaks against it, and keeps it
    # only when the step is measured faster
    adds_graphs: bool = False
    # a lever that changes no count (a precision setting): `tdiag fix --verify` judges it by the step time alone, in
    # the round after the structural patches, like CUDA graphs and the optimizer's (RUN findings' patches)
    step_time: bool = False


@lean_dataclass
class Finding:
    """One problem a rule found at a user line, with its evidence, cost and fix."""

    code: str  # stable rule code, e.g. BRK001
    name: str  # kebab-case rule name
    severity: str  # error, warning, info
    message: str
    fix: str  # one-line fix headline
    path: str
    line: int
    column: int | None = None
    end_column: int | None = None
    function: str | None = None
    gb_id: str | None = None
    gb_url: str | None = None
    occurrences: int = 1
    compile_ids: list[str] = field(default_factory=list)
    impact: float = 0.0
    library_frame: Frame | None = None
    evidence: Evidence | None = None  # typed per rule family (evidence.py)
    suggestion: Suggestion | None = None
    ranks: dict[int, int] = field(default_factory=dict)  # rank -> occurrences (multi-rank runs)
    graph_keys: list[GraphKey] = field(default_factory=list)  # the graphs it concerns, rank included
    cost: Cost | None = None  # what it costs (analyzer/cost.py); None when nothing was measured or estimated
    # torch's own expected behaviour (the optimizer's graph_break(), DDP's bucket splits, FSDP's disabled hooks,
    # per-block compilation's one extra compile): info, nothing to fix, ranked after every fixable finding, still
    # counted in the totals
    by_design: bool = False
    # the fix line's standing (analyzer/fix_status.py): "unverified" (a candidate's words, not yet proved on this
    # program), "verified" / "refused" (by the record's last `tdiag fix --verify`), None (nothing to verify: by
    # design, expected, no fix); fix_verdict says what verification measured, or why it refused
    fix_status: str | None = None
    fix_verdict: str | None = None

    @property
    def family(self) -> str:
        return self.code.rstrip("0123456789")

    @property
    def anchor(self) -> str:
        """Stable permalink id, e.g. ``BRK001-train.py-42``."""
        base = self.path.rsplit("/", 1)[-1]
        return f"{self.code}-{base}-{self.line}"


@lean_dataclass
class GraphRuntime:
    """One compiled graph in the measured runtime window (analyzer/runtime.py)."""

    calls: int = 0
    host_s: float = 0.0  # host time in the graph's own call (nested frames' regions excluded)
    device_s: float | None = None  # CUDA: kernel time it launched; CPU: time its ops ran; None: not measured
    # CUDA: device time of the kernels launched inside each Inductor call of the graph, per role (forward, backward),
    # joined per launch (analyzer/kernel_time.py); the part no call site of the kernel table claimed
    kernel_device_s: dict[str, float] = field(default_factory=dict)
    unattributed_device_s: dict[str, float] = field(default_factory=dict)


@lean_dataclass
class Cost:
    """What a finding costs. ``basis``: measured (runtime window), compile (compile seconds, whole run), none."""

    total_s: float = 0.0  # over the measured window (measured) or the whole run (compile)
    per_call_ms: float | None = None  # per measured step
    share: float | None = None  # of the window (measured) or of all compile time (compile)
    basis: str = "none"
    # what the figure does not say about the fix's saving (shown with the cost); lower_bound: the saving is larger
    caveat: str | None = None
    lower_bound: bool = False
    note: str | None = None  # what the figure leaves to other findings; joins the message (analyzer/finish.py)


@lean_dataclass
class RuntimeSummary:
    """The measured runtime window: a partition of its wall time (compiled + eager + guard + compile + recording =
    window)."""

    status: str = "not_measured"  # measured, not_measured
    reason: str | None = None  # why not measured
    steps: int = 0
    step_function: str | None = None
    device: str | None = None
    window_s: float = 0.0
    compiled_s: float = 0.0
    eager_s: float = 0.0  # outside compiled graphs: between graphs (breaks) and around them (user code)
    guard_s: float = 0.0
    compile_s: float = 0.0
    # CUDA-graph recordings inside the window (torch brackets them like compiles: CallbackTrigger.CUDAGRAPH_RECORDING),
    # named apart from compile_s: a window that holds one is not a run of replays
    recording_s: float = 0.0
    attributed_s: float = 0.0  # eager time attributed to findings
    unattributed_s: float = 0.0  # eager time no finding explains (the program's own eager code)
    basis: str = "none"  # measured, none
    per_rank: dict[str, dict[str, Any]] = field(default_factory=dict)  # multi-rank: each rank's own window
    partial: bool = False  # the program ended inside the window: it holds ``steps`` of ``planned_steps``
    planned_steps: int | None = None
    step_reason: str | None = None  # why step_function is the step (the callables entered, how often)
    step_path: str | None = None
    step_line: int | None = None
    # the user's line that enters the step ("train.py:30": the call in the user's loop, or trainer.train()), shown
    # first, with the step's own (often a library's) file beside it
    entered_at: str | None = None
    # eager time outside compiled code by what ran there (seconds): python, ops, loss, optimizer, backward, data
    eager_parts: dict[str, float] = field(default_factory=dict)
    device_busy_s: float | None = None  # CUDA: time the device ran anything in the window
    # per kind of collective (all-gather, reduce-scatter, all-reduce, ...): calls, issue_s (the program's threads in
    # c10d's ops), run_s (the backend running it: gloo's workers, NCCL's kernels; overlaps compute when asynchronous)
    collectives: dict[str, dict[str, float]] = field(default_factory=dict)
    # the steps after the window, timed without the profiler (the record's ``runtime_steady``): their median, the
    # program's step unobserved (the window's parts stay its shares), and how many steps it spans; None / 0 where the
    # program ended with the window or compiled again right after it
    steady_step_s: float | None = None
    steady_steps: int = 0
    # the window's steps that ran over LONG_STEP_FACTOR times its median step (a step called from nested loops: the
    # one spanning an outer iteration's end, evaluation and printing; or one that compiled): counted in the window and
    # said, never the step time (the steady median); their number and total seconds
    long_steps: int = 0
    long_steps_s: float = 0.0
    # why the window ended before a late step boundary (that step not counted: a compile, an outer loop's end)
    cut: str | None = None

    @property
    def step_s(self) -> float | None:
        """The step time every output and every verdict uses: the steady (unprofiled) mean where measured, else the
        window's mean."""
        if self.steady_step_s is not None:
            return self.steady_step_s
        return self.window_s / self.steps if self.status == "measured" and self.steps > 0 and self.window_s > 0 else None


@lean_dataclass
class EagerComparison:
    """The measured step against the same program run with torch.compile disabled (``tdiag run --vs-eager``):
    every output prints ``line``; analyzer/eager_compare.py fills it from the record's ``eager_baseline`` event."""

    status: str = "not_requested"  # measured, not_measured, not_requested (the run has a window, no eager run)
    reason: str | None = None  # not_measured: why
    verdict: str | None = None  # measured: slower, faster, or within (the spread decides nothing)
    line: str = ""  # the one line every output shows
    detail: str = ""  # how it was judged: the spreads, the share of step pairs, the caveats
    compiled_step_s: float | None = None  # median of the compiled window's per-step times
    eager_step_s: float | None = None  # median of the eager windows' per-step times (all runs together)
    speedup: float | None = None  # eager / compiled medians: above 1 the compiled step is faster
    # share of (compiled step, eager step) pairs in which the compiled step took longer (ties count half)
    slower_share: float | None = None
    compiled_step_times_s: list[float] = field(default_factory=list)
    eager_step_times_s: list[float] = field(default_factory=list)
    eager_runs: int = 0  # eager runs that measured a window (of those asked for: eager_runs_asked)
    eager_runs_asked: int = 0
    eager_exit_codes: list[int] = field(default_factory=list)
    cause: str | None = None  # slower: where the compiled step's time goes (analyzer/eager_compare.where_time_goes)


@lean_dataclass
class Crash:
    """The exception that stopped the program or one of its threads (analyzer/crash.py reads it from the record)."""

    kind: str  # the owning CRS rule's KIND: graph_break, data_dependent_guard, recompile_policy, backend_failed,
    #            environment, constraint_violation, cudagraph_overwritten, torch_internal, compile_stack (other
    #            torch.compile errors); program: no CRS rule claimed it (the program's own error)
    exception: str  # qualified type name, e.g. "torch._dynamo.exc.Unsupported"
    headline: str  # the first line of torch's message
    message: str = ""  # torch's whole message
    thread: str = "MainThread"
    ended_program: bool = True  # False: a thread other than the main one died and the program went on
    caused_by_torch: bool = True  # raised by torch.compile or caused by it (False: the program's own error)
    site: Site | None = None  # the user line of the cause (the construct, the guard's line), else the call
    call_site: Site | None = None  # the user line of the compiled call that raised
    compile_id: str | None = None
    gb_id: str | None = None  # torch's graph-break id, e.g. "GB0170"
    gb_type: str | None = None
    policy: str | None = None  # what made it an error: fullgraph=True, set_stance("fail_on_recompile"), ...
    detail: str | None = None  # the guard, the dimension, the backend's own error, the missing tool
    rank: int | None = None
    # Facts read off the event (analyzer/crash.py) that the CRS rules' ``matches`` and ``describe`` decide on:
    chain: str = ""  # "Type: message" of each exception it was raised from, innermost last
    original: str | None = None  # the innermost exception's qualified type (what first went wrong)
    original_in_torch: bool = False  # that exception's innermost frame is in torch's compile stack, not user code
    inner: str | None = None  # a backend's own exception (BackendCompilerFailed.inner_exception): "Type: line"
    backend: str | None = None  # the backend's name, as torch gives it
    from_compile_stack: bool = False  # raised by or through torch.compile's modules
    cause_site: Site | None = None  # the user line Dynamo was tracing (real_stack), else the one torch quotes
    quoted_site: Site | None = None  # the innermost user line torch quotes in its message
    backend_site: Site | None = None  # the user's own backend frame that raised (below torch's entry)
    op_site: Site | None = None  # the user line of the graph node whose op torch names (``target: aten...``)
    traced: list[Site] = field(default_factory=list)  # the user frames Dynamo was tracing, outermost first


@lean_dataclass
class Summary:
    """The headline counts of a run."""

    graphs: int = 0
    graph_breaks: int = 0
    break_sites: int = 0
    recompiles: int = 0
    frames_compiled: int = 0
    eager_fallbacks: int = 0
    compile_time_s: float = 0.0
    kernels_by_kind: dict[str, int] = field(default_factory=dict)
    findings_by_severity: dict[str, int] = field(default_factory=dict)
    runtime: RuntimeSummary | None = None  # None: the record has no runtime data (older record, import, --no-profile)
    crash: Crash | None = None  # what stopped the program, when torch.compile did (it is also the first finding)
    # the measured step against eager (None: no measured step and no eager run to compare it with)
    vs_eager: EagerComparison | None = None
    # FX graph and AOTAutograd cache outcomes (None: an Analysis exported before compile caches were analysed)
    compile_cache: CompileCacheSummary | None = None


@lean_dataclass
class CaptureProblem:
    """Something the capture could not see: a hook that failed (counted, never raised into torch) or compiles that
    left no structured-trace event. Any of these makes the run's findings possibly incomplete."""

    what: str  # the capture part: "structured-trace handler", "graph-break hook", "structured trace", ...
    count: int = 1
    exception: str | None = None  # exception type name; None for a gap found by the analysis
    message: str = ""
    torch_version: str | None = None
    rank: int | None = None


@lean_dataclass
class AnalysisProblem:
    """A part of tdiag's own analysis that raised (a rule, a suggester): only its findings (its suggestions) are
    missing, and every output says which part failed (analyzer/faults.py records it, capture_health words it)."""

    # "rule", "suggester", "stage" (analyzer/stages.py), "record" (a record that cannot support an all-clear:
    # capture_health.record_limits), or "analysis" (the machinery around rules and suggesters)
    part: str
    name: str  # the rule's code (CMP002), the suggester's module name (mark_dynamic), or what ran them
    exception: str  # exception type name
    message: str = ""
    traceback_file: str | None = None  # where the traceback was saved (None: it could not be saved)
    count: int = 1  # how many times it raised in this analysis (a suggester: once per finding it was asked about)
    skipped: list[str] = field(default_factory=list)  # a stage: the stages skipped for want of its facts


@lean_dataclass
class RunInfo:
    """The run itself: command, versions, device, how it ended, what the capture could not see."""

    argv: list[str] = field(default_factory=list)
    command: str = ""
    tdiag_version: str | None = None
    torch_version: str | None = None
    python_version: str | None = None
    device: str | None = None
    platform: str | None = None
    started: float | None = None
    duration_s: float | None = None
    exit_code: int | None = None
    exit_reason: str | None = None  # exit, exception, signal, keyboard_interrupt, unknown (record cut short)
    complete: bool = False
    ranks: list[int] = field(default_factory=list)
    hosts: dict[int, str] = field(default_factory=dict)  # rank -> the node (hostname) it ran on, from its header
    incomplete_ranks: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # missing hooks, reduced detail
    record_problems: list[str] = field(default_factory=list)  # truncated lines, unknown events
    capture_problems: list[CaptureProblem] = field(default_factory=list)  # non-empty: the capture was incomplete
    analysis_problems: list[AnalysisProblem] = field(default_factory=list)  # non-empty: a rule or suggester failed
    torch_notice: str | None = None  # a torch outside the tested matrix: one line every output prints
    source: str = "tdiag run"  # or "tdiag import"


class CodeStore(dict):
    """hash -> generated code or graph text. A value may be a zero-argument loader (e.g. a slice of a blob still on
    disk in the record), resolved on access, so analysing gigabytes of generated code keeps only what is looked at."""

    def __getitem__(self, key: str) -> str:
        value = super().__getitem__(key)
        return value() if callable(value) else value

    def get(self, key: str, default: str | None = None) -> str | None:
        return self[key] if key in self else default

    def items(self):  # type: ignore[override]
        return [(key, self[key]) for key in self.keys()]

    def values(self):  # type: ignore[override]
        return [self[key] for key in self.keys()]


@lean_dataclass
class Analysis:
    """Everything tdiag knows about one run: every output reads only this."""

    run: RunInfo = field(default_factory=RunInfo)
    summary: Summary = field(default_factory=Summary)
    findings: list[Finding] = field(default_factory=list)
    graphs: list[CompiledGraph] = field(default_factory=list)
    breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    frames: list[FrameInfo] = field(default_factory=list)
    crashes: list[Crash] = field(default_factory=list)  # every ending exception recorded (program and threads)
    sources: dict[str, str] = field(default_factory=dict)  # display path -> snapshot text
    code: dict[str, str] = field(default_factory=CodeStore)  # hash -> generated code / graph text
    verification: dict[str, Any] | None = None  # the last `tdiag fix --verify` result kept with the record
    schema_version: int = SCHEMA_VERSION

    def to_dict(self, include_code: bool = True) -> dict[str, Any]:
        # The code store is left out of the deep copy: asdict would resolve every lazy loader (read every blob of
        # the record) even for an export without code.
        data = dataclasses.asdict(dataclasses.replace(self, code={}))
        data["code"] = dict(self.code.items()) if include_code else {}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Analysis:
        return _from_dict(cls, data)

    def findings_at(self, path: str, line: int) -> list[Finding]:
        return [f for f in self.findings if f.path == path and f.line == line]

    def graph(self, key: GraphKey) -> CompiledGraph | None:
        """The graph named by ``key`` (rank and compile id: compile ids repeat across ranks)."""
        if not isinstance(key, GraphKey):
            raise TypeError(f"Analysis.graph takes a GraphKey, not {type(key).__name__}")
        return next((g for g in self.graphs if g.compile_id == key.compile_id and g.rank == key.rank), None)

    # IPython's display protocol, so `rec.analysis()` shows its findings in a notebook (and as text in a terminal).
    def _repr_html_(self) -> str:
        return _notebook_renderer().to_html(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(_notebook_renderer().to_text(self))


def _notebook_renderer() -> Any:
    """tdiag.reports.notebook, found by name when a notebook displays an Analysis: the analyzer sits below every
    renderer and never imports one, so loading a record needs no rendering library."""
    return importlib.import_module("tdiag.reports.notebook")


_HINTS_CACHE: dict[type, dict[str, Any]] = {}


def _from_dict(cls: type, data: Any) -> Any:
    hints = _HINTS_CACHE.get(cls)
    if hints is None:  # evidence.py names model types without importing them: resolve them here
        hints = _HINTS_CACHE[cls] = typing.get_type_hints(cls, localns=globals())
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.init and f.name in data:
            kwargs[f.name] = _convert(hints[f.name], data[f.name])
    return cls(**kwargs)


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(inner[0], value) if len(inner) == 1 else value
    if tp is Evidence:
        cls = evidence_class(value.get("kind"))
        if cls is OtherEvidence and value.get("kind") != "other":
            return OtherEvidence(values={k: v for k, v in value.items() if k != "kind"})
        return _from_dict(cls, value)
    if dataclasses.is_dataclass(tp):
        return _from_dict(tp, value)
    if origin is list:
        (item,) = typing.get_args(tp)
        return [_convert(item, v) for v in value]
    if origin is dict:
        key, item = typing.get_args(tp)
        # JSON object keys are strings: an int-keyed field (ranks) gets its ints back
        return {(int(k) if key is int else k): _convert(item, v) for k, v in value.items()}
    return value
