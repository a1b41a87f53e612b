"""What every rule reads (``RuleContext``): the Analysis, the log, the facts of the pipeline's stages, and views
of them computed once and shared; and the guard that makes a claimant's fault its own (``_ClaimGuard``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tdiag.analyzer.rules._registry import Registered, claimants

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Frame, Site

class RuleContext:
    """What every rule reads: the Analysis, the log, and views of them computed once and shared."""

    def __init__(self, analysis: Analysis, log: Any = None, rules: list[Registered] | None = None, facts: Any = None):
        self.analysis = analysis
        self.log = log  # the EventLog the analysis was built from (None when re-analysing an exported Analysis)
        self.facts = facts  # the pipeline's fact sets (analyzer/stages.py); None: read from the log here
        self.rules = rules  # the rules run over it (None: every registered rule)
        self.faults: dict[str, BaseException] = {}  # code -> what the rule raised: it loses its findings, only them

    @cached_property
    def measured_window(self):
        """The runtime window of the lowest rank that measured one (a RuntimeSummary), or None: the runtime stage's
        facts, parsed once (read from the log here only outside the pipeline)."""
        return self._runtime.lead if self._runtime is not None else None

    @cached_property
    def vs_eager(self):
        """The comparison of the measured step with eager runs (an EagerComparison), or None."""
        if self.facts is not None:
            return self.facts.get("vs_eager")
        from tdiag.analyzer import eager_compare

        runtime = self._runtime
        return eager_compare.compare(self.log, runtime.summary, runtime.step_us) if runtime is not None else None

    @cached_property
    def _runtime(self):
        if self.facts is not None:
            return self.facts.get("runtime")
        if self.log is None:
            return None
        from tdiag.analyzer.runtime import parse

        return parse(self.log)

    @cached_property
    def torch_warnings(self) -> list:
        """torch's warnings of the run, each at the user's line (analyzer/torch_warnings.py): the stage's facts, else
        read from the log; none without a log (an exported Analysis keeps their findings, not the warnings)."""
        if self.facts is not None:
            return self.facts.get("torch_warnings", [])
        if self.log is None:
            return []
        from tdiag.analyzer.paths import PathMapper
        from tdiag.analyzer.torch_warnings import read

        header = self.log.header
        return read(self.log, PathMapper(header.get("root"), header.get("tool_paths"), header.get("cwd")))

    @cached_property
    def frame_sites(self) -> dict[tuple, Site]:
        """(rank, frame_id) -> the user line that entered the frame."""
        from tdiag.analyzer.rules._sites import frame_call_sites

        return frame_call_sites(self.analysis)

    def graph_anchor(self, graph) -> tuple[Site, Frame | None]:
        from tdiag.analyzer.rules._sites import anchor

        return anchor(graph.path, graph.line, graph.code_name, self.frame_sites.get((graph.rank, graph.frame_id)))

    @cached_property
    def break_sites(self) -> set[tuple[str, int]]:
        return {b.site.key for b in self.analysis.breaks}

    @cached_property
    def break_causes(self) -> dict[str, list]:
        """rule code -> the break causes it owns (``_breaks.Cause``), each cause owned by one claiming rule."""
        from tdiag.analyzer.rules._breaks import claim_breaks

        return self.claimed("breaks", lambda entries: claim_breaks(self.analysis.breaks, entries))

    @cached_property
    def recompile_causes(self) -> dict[str, list]:
        """rule code -> [(user site, recompiles)] it owns."""
        from tdiag.analyzer.rules._recompiles import claim_recompiles

        return self.claimed("recompiles", lambda entries: claim_recompiles(self, entries))

    @cached_property
    def crash_claims(self) -> dict[int, Registered]:
        """index in ``analysis.crashes`` -> the rule that owns that crash (``_crashes.claim_crashes``)."""
        from tdiag.analyzer.rules._crashes import claim_crashes

        return self.claimed("crashes", lambda entries: claim_crashes(self.analysis.crashes, entries, self))

    def claimed(self, claims: str, claim: Callable[[list[Registered]], Any]) -> Any:
        """``claim(claimants)`` over the rules claiming ``claims``. A claimant whose ``matches`` raises is a fault of
        that rule alone: it is left out and the events are claimed again by the others."""
        while True:
            try:
                return claim(self.live_claimants(claims))
            except _ClaimFault as fault:
                self.faults.setdefault(fault.code, fault.error)

    def live_claimants(self, claims: str) -> list[Registered]:
        """The claimants of ``claims`` that have not failed, in priority order, each ``matches`` saying which rule
        raised (_ClaimFault): what every claim and every later look-up of an owner must ask."""
        return [_ClaimGuard.around(e) for e in claimants(claims, self.rules) if e.rule.code not in self.faults]


class _ClaimFault(Exception):
    def __init__(self, code: str, error: BaseException):
        super().__init__(code)
        self.code, self.error = code, error


class _ClaimGuard:
    """A claiming rule's module whose ``matches`` says which rule raised (a claim runs every claimant's at once)."""

    def __init__(self, module: ModuleType, code: str):
        self._module, self._code = module, code

    @classmethod
    def around(cls, entry: Registered) -> Registered:
        return Registered(entry.rule, entry.check, cls(entry.module, entry.rule.code))

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)  # AttributeError as the module's own: getattr(guard, name, None) works
        # matches, and describe (a crash's owner places and details it, rules/_crashes.py), run inside the claim
        return self._guarded(value) if name in ("matches", "describe") else value

    def _guarded(self, function: Callable) -> Callable:
        def call(*args: Any) -> Any:
            try:
                return function(*args)
            except Exception as exc:
                raise _ClaimFault(self._code, exc) from exc

        return call
