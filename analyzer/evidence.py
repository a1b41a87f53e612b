"""Typed evidence: what a rule saw, one dataclass per rule family, stored on ``Finding.evidence``.

Every class has a ``kind`` discriminator that is written to the JSON export, so ``Analysis.from_dict`` reads each
finding's evidence back as the class that wrote it (``evidence_class(kind)``). Fields are keyword-only with defaults,
so a rule fills what it knows and a reader of an older or newer export still gets an object. Plain data: no torch,
no rendering; ``facts()`` gives the label/value pairs every renderer shows after the fields it lays out itself.

To add a family: subclass ``Evidence`` with ``kind`` set to a new name and decorate it with ``@evidence_kind``.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:  # model.py imports this module; the name is resolved in model's namespace when read back
    from tdiag.analyzer.model import Frame

_KINDS: dict[str, type[Evidence]] = {}
E = TypeVar("E", bound="Evidence")


def evidence_kind(cls: type[Evidence]) -> type[Evidence]:
    """Register an evidence class under its ``kind`` so exports read back as the same class."""
    kind = cls.__dataclass_fields__["kind"].default
    if kind in _KINDS and _KINDS[kind] is not cls:
        raise ValueError(f"evidence kind {kind!r} registered twice")
    _KINDS[kind] = cls
    return cls


def registered_kinds() -> dict[str, type[Evidence]]:
    """Every evidence kind this version reads and writes."""
    return dict(_KINDS)


def evidence_class(kind: str | None) -> type[Evidence]:
    """The class registered for ``kind``; unknown kinds (a newer export) read back as ``OtherEvidence``."""
    return _KINDS.get(kind or "", OtherEvidence)


@lean_dataclass(kw_only=True)
class Evidence:
    """What a rule saw; ``kind`` names the subclass in the JSON export."""

    kind: str = field(default="", init=False)
    # Names of fields that renderers lay out themselves (torch's words, guard, stack) rather than as plain facts.
    LAID_OUT: ClassVar[tuple[str, ...]] = ()

    def facts(self) -> list[tuple[str, str]]:
        """Label/value pairs for the fields no renderer lays out specially, empty values left out."""
        rows = []
        for name, value in vars(self).items():
            if name == "kind" or name in self.LAID_OUT or value is None or value == "" or value == [] or value == {}:
                continue
            rows.append((_label(name), _plain(value)))
        return rows


def _label(name: str) -> str:
    return name[:-2].replace("_", " ") + " (s)" if name.endswith("_s") else name.replace("_", " ")


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    return str(value)


@evidence_kind
@lean_dataclass(kw_only=True)
class BreakEvidence(Evidence):
    """A graph break (BRK*), in torch's words, for the first break at the site."""

    kind: str = field(default="break", init=False)
    reason: str = ""  # torch's gb_type
    explanation: str = ""
    hints: list[str] = field(default_factory=list)
    context: str = ""  # torch's developer debug context
    user_stack: list[Frame] = field(default_factory=list)
    offset: int | None = None
    opname: str | None = None
    code_name: str | None = None
    source: str | None = None  # the user's line, as recorded
    # every distinct cause at this line (gb_id, gb_url, reason, occurrences, library_frame), most frequent first
    causes: list[dict[str, Any]] = field(default_factory=list)
    # breaks that followed from the cause (reconstruction failure, graph break in loop): gb_id, reason, occurrences
    chain: list[dict[str, Any]] = field(default_factory=list)
    # for a frame Dynamo skipped (BRK006): the rule that owns the break had Dynamo resumed after it (BRK002 for a
    # `.item()` in a loop body), whose patch removes the break and lets the frame compile whole; None otherwise
    inner_code: str | None = None
    LAID_OUT: ClassVar[tuple[str, ...]] = ("reason", "explanation", "hints", "user_stack", "source")

    def skipped_call(self):
        """The function Dynamo skipped (a ``SkippedCall``: name, file, torch's skip reason), when this break is torch's
        skipped-function break; read from torch's debug context and explanation."""
        from tdiag.analyzer.skipped_call import skipped_call

        return skipped_call(self.reason, self.explanation, self.context)

    def facts(self) -> list[tuple[str, str]]:
        rows = []
        skipped = self.skipped_call()
        if skipped is not None:
            where = f" ({skipped.file})" if skipped.file else ""
            rows.append(("skipped call",
                         f"{skipped.name}{where}: {skipped.why}; torch's skip reason: {skipped.reason}"))
        if self.opname or self.offset is not None:
            where = f" in {self.code_name}" if self.code_name else ""
            rows.append(("bytecode", f"{self.opname or '?'} at offset {self.offset}{where}"))
        if self.context:
            rows.append(("debug context", self.context))
        if len(self.causes) > 1:  # every distinct cause at the line, each with its own GB id and count
            rows += [("cause", _cause_text(c)) for c in self.causes]
        rows += [("then", _cause_text(c)) for c in self.chain]
        return rows


def _cause_text(c: dict[str, Any]) -> str:
    text = " ".join(p for p in (c.get("gb_id"), c.get("reason")) if p)
    if c.get("library_frame"):
        text += f" (in {c['library_frame']})"
    n = c.get("occurrences") or 0
    return text + (f" x{n}" if n > 1 else "")


@evidence_kind
@lean_dataclass(kw_only=True)
class RecompileEvidence(Evidence):
    """A recompilation (RCP001-4, RCP006): the recompiled frame and the primary guard that failed."""

    kind: str = field(default="recompile", init=False)
    frame: str = ""  # code name of the recompiled frame
    frame_path: str = ""
    frame_line: int | None = None
    guard: str | None = None  # torch's failure text
    guard_kind: str | None = None  # GuardFailure.kind
    subject: str | None = None
    dim: int | None = None
    expected: str | None = None
    actual: str | None = None
    guard_source: str | None = None
    guard_path: str | None = None
    guard_line: int | None = None
    failures: list[str] = field(default_factory=list)  # every failure text at this site
    frames: list[str] = field(default_factory=list)  # path:line of every compiled frame (resume functions too)
    call_sites: list[str] = field(default_factory=list)  # path:line of the user lines that called them
    automatic_dynamic: list[str] = field(default_factory=list)  # what Dynamo made dynamic after these recompiles

    def facts(self) -> list[tuple[str, str]]:
        rows = []
        if self.frame:
            rows.append(("recompiled frame", f"{self.frame} ({self.frame_path}:{self.frame_line})"))
        if self.subject:
            dim = f" dim {self.dim}" if self.dim is not None else ""
            rows.append(("guarded value", f"{self.subject}{dim} ({self.guard_kind or 'guard'})"))
        if self.guard_path:
            source = f": {self.guard_source.strip()}" if self.guard_source else ""
            rows.append(("guard from", f"{self.guard_path}:{self.guard_line}{source}"))
        others = sorted(set(self.failures) - {self.guard})
        if others:
            rows.append(("other failures", "; ".join(others)))
        if len(self.frames) > 1:
            rows.append(("frames", ", ".join(self.frames)))
        if len(self.call_sites) > 1:
            rows.append(("called from", ", ".join(self.call_sites)))
        if self.automatic_dynamic:
            rows.append(("then made dynamic", ", ".join(self.automatic_dynamic)))
        return rows


@evidence_kind
@lean_dataclass(kw_only=True)
class RecompileLimitEvidence(Evidence):
    """A frame that hit the recompile limit (RCP005)."""

    kind: str = field(default="recompile_limit", init=False)
    failures: list[str] = field(default_factory=list)  # the first failing guard of each recompile
    fail_reason: str | None = None


@evidence_kind
@lean_dataclass(kw_only=True)
class DynamicEvidence(Evidence):
    """Automatic-dynamic decisions torch made for a frame (DYN001), e.g. ``L['x'] dim 0 -> dynamic``."""

    kind: str = field(default="dynamic", init=False)
    decisions: list[str] = field(default_factory=list)


@evidence_kind
@lean_dataclass(kw_only=True)
class FallbackEvidence(Evidence):
    """An op left to eager ATen inside a compiled graph (LOW001)."""

    kind: str = field(default="fallback", init=False)
    op: str = ""
    kernel: str = ""
    reason: str = ""
    backend: str = ""
    graphs: list[str] = field(default_factory=list)  # forward, backward, inference
    before: str | None = None  # the kernels it separates
    after: str | None = None
    code: str | None = None  # the user line it comes from
    LAID_OUT: ClassVar[tuple[str, ...]] = ("code",)


@evidence_kind
@lean_dataclass(kw_only=True)
class EpilogueEvidence(Evidence):
    """An extern GEMM whose pointwise epilogue runs as a separate kernel (LOW002)."""

    kind: str = field(default="epilogue", init=False)
    gemm: str = ""
    backend: str = ""
    epilogue: str = ""
    epilogue_nodes: list[str] = field(default_factory=list)
    graph: str = ""
    code: str | None = None
    LAID_OUT: ClassVar[tuple[str, ...]] = ("code",)


@evidence_kind
@lean_dataclass(kw_only=True)
class TinyGraphsEvidence(Evidence):
    """Graphs too small to be worth their call overhead (CMP001)."""

    kind: str = field(default="tiny_graphs", init=False)
    op_counts: list[int] = field(default_factory=list)
    threshold_ops: int = 0


@evidence_kind
@lean_dataclass(kw_only=True)
class CompileCostEvidence(Evidence):
    """Where one graph's compile time went (CMP002)."""

    kind: str = field(default="compile_cost", init=False)
    compile_time_s: float = 0.0
    share: float = 0.0  # of the run's total compile time
    stages: dict[str, float] = field(default_factory=dict)
    cache: dict[str, str] = field(default_factory=dict)
    total_compile_time_s: float = 0.0

    def facts(self) -> list[tuple[str, str]]:
        rows = [("compile time", f"{self.compile_time_s:.3g} s of {self.total_compile_time_s:.3g} s in the run "
                                 f"({self.share:.0%})")]
        if self.stages:
            rows.append(("stages", ", ".join(f"{k} {v:.3g} s" for k, v in self.stages.items())))
        if self.cache:
            rows.append(("cache", _plain(self.cache)))
        return rows


@evidence_kind
@lean_dataclass(kw_only=True)
class CompileFailureEvidence(Evidence):
    """A frame compile that failed (CMP003): torch's fail type and reason; the frame ran eagerly instead."""

    kind: str = field(default="compile_failure", init=False)
    fail_type: str = ""  # BackendCompilerFailed, Unsupported, GuardOnDataDependentSymNode, ...
    fail_reason: str = ""
    frame: str = ""  # path:line of the compiled function
    ran_instead: str = "eager"
    restart_reasons: list[str] = field(default_factory=list)
    LAID_OUT: ClassVar[tuple[str, ...]] = ("fail_reason",)


@evidence_kind
@lean_dataclass(kw_only=True)
class DivergenceEvidence(Evidence):
    """Counts that differ between ranks (DIV001); rank keys are strings, as in JSON."""

    kind: str = field(default="divergence", init=False)
    per_rank: dict[str, int] = field(default_factory=dict)
    divergent_ranks: list[int] = field(default_factory=list)
    compile_ids_by_rank: dict[str, list[str]] = field(default_factory=dict)
    incomplete_ranks: list[int] = field(default_factory=list)


@evidence_kind
@lean_dataclass(kw_only=True)
class OtherEvidence(Evidence):
    """Evidence of a kind this version does not know (read from a newer export): kept as plain values."""

    kind: str = field(default="other", init=False)
    values: dict[str, Any] = field(default_factory=dict)

    def facts(self) -> list[tuple[str, str]]:
        return [(_label(k), _plain(v)) for k, v in self.values.items() if v not in (None, "", [], {})]


@evidence_kind
@lean_dataclass(kw_only=True)
class CudaGraphEvidence(Evidence):
    """CUDA graphs skipped or re-recorded (CGR*): torch's reasons and the recordings, per graph."""

    kind: str = field(default="cudagraph", init=False)
    graph: str = ""  # code name and line of the compiled function
    reasons: list[str] = field(default_factory=list)  # torch's skip reasons
    skip_kind: str | None = None
    op: str | None = None
    at: str | None = None  # compile or run
    recordings: int = 0
    shapes: list[str] = field(default_factory=list)  # input sizes of each recording
    code: str | None = None  # the user line torch quoted
    LAID_OUT: ClassVar[tuple[str, ...]] = ("code",)


@evidence_kind
@lean_dataclass(kw_only=True)
class DistributedEvidence(Evidence):
    """DDP/FSDP facts (DST*): DDPOptimizer buckets, or why a compiled model ran eagerly."""

    kind: str = field(default="distributed", init=False)
    wrapper: str | None = None  # DistributedDataParallel, FullyShardedDataParallel
    buckets: list[str] = field(default_factory=list)  # "submod_0: layers.0.weight, layers.0.bias (1.0 MiB)"
    frames: list[str] = field(default_factory=list)  # the frames Dynamo started, none of them user code
    compile_line: str | None = None  # path:line of the torch.compile call
    reason: str = ""


@evidence_kind
@lean_dataclass(kw_only=True)
class CrashEvidence(Evidence):
    """The exception that stopped the program (CRS*): torch's type and message, and what the analysis made of it."""

    kind: str = field(default="crash", init=False)
    exception: str = ""  # qualified type name
    thread: str = "MainThread"
    ended_program: bool = True
    call: str | None = None  # path:line of the compiled call that raised
    policy: str | None = None  # what made it an error (fullgraph=True, set_stance("fail_on_recompile"), ...)
    detail: str | None = None  # the guard, the dimension, the backend's own error
    torch_message: str = ""
    LAID_OUT: ClassVar[tuple[str, ...]] = ("torch_message",)


def evidence_as(evidence: Evidence | None, cls: type[E]) -> E:
    """``evidence`` when it is a ``cls``, else an empty ``cls``: readers name the family they understand."""
    return evidence if isinstance(evidence, cls) else cls()


@evidence_kind
@lean_dataclass(kw_only=True)
class RuntimeShareEvidence(Evidence):
    """A share of the measured step no compiled graph ran (RUN*): eager time by what ran there, or device idle time."""

    kind: str = field(default="runtime_share", init=False)
    seconds: float = 0.0  # in the window: what the finding costs
    share: float = 0.0  # of the window
    steps: int = 0
    parts_ms_per_step: dict[str, float] = field(default_factory=dict)
    device_busy_s: float | None = None
    partial: bool = False
    # the break and recompile findings ("BRK001 at prog.py:12") a whole-step finding ranks after: the measured share
    # did not outweigh them (analyzer/ranking.py, place_whole_step)
    ranked_after: list[str] = field(default_factory=list)


@evidence_kind
@lean_dataclass(kw_only=True)
class CompileCacheEvidence(Evidence):
    """A compile cache that was off, bypassed, cold or missed where another rank hit (CCH*)."""

    kind: str = field(default="compile_cache", init=False)
    cache: str = ""  # fx_graph, aot_autograd, or "all"
    state: str = ""  # disabled, bypass, miss
    cause: str = ""  # in the user's words
    torch_reason: str | None = None  # torch's own words (a bypass's reason, the switch that turned it off)
    seconds: float = 0.0  # compile seconds it cost in this run (torch's time_taken, or the graphs' compile time)
    graphs: int = 0
    ranks: dict[str, str] = field(default_factory=dict)  # multi-rank: rank -> hit/miss for the same key


@evidence_kind
@lean_dataclass(kw_only=True)
class TorchWarningEvidence(Evidence):
    """A warning torch showed (WRN*): its text, category, the torch module that issued it and where torch located it."""

    kind: str = field(default="torch_warning", init=False)
    torch_message: str = ""  # torch's warning, as shown
    category: str = ""  # UserWarning, FutureWarning, ...
    module: str = ""  # the torch module that issued it
    torch_location: str | None = None  # path:line the warning names, where it is inside torch
    entry: str | None = None  # the catalogue entry it matched (analyzer/torch_warnings.json)

    def facts(self) -> list[tuple[str, str]]:
        rows = [("torch's warning", f"{self.category}: {self.torch_message.strip()}")] if self.torch_message else []
        if self.module:
            where = f" at {self.torch_location}" if self.torch_location else ""
            rows.append(("issued by", f"{self.module}{where}"))
        return rows


@evidence_kind
@lean_dataclass(kw_only=True)
class KnownDivergenceEvidence(Evidence):
    """A Python object whose behaviour Dynamo models differently from CPython, used inside compiled code (EGR003):
    the catalogue entry (analyzer/eager_divergences.json), the object as the user names it, and where it is made."""

    kind: str = field(default="known_divergence", init=False)
    entry: str = ""
    holder: str = ""  # the object, as the user's code names it (self.frames)
    made_at: str = ""  # path:line of the statement that makes it

    def facts(self) -> list[tuple[str, str]]:
        return [("known divergence", self.entry), ("object", f"{self.holder} (made at {self.made_at})")]
