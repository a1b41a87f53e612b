"""Rules: one module per rule, ``analyzer/rules/<code>_<snake_name>.py``, discovered from this package.

Adding a rule touches its own file only. The module's docstring (What it does / Why is this bad? / Example /
Use instead) is the ``tdiag rule CODE`` text and the SARIF description; codes are stable and never reused; families
are ruff-style prefixes (a new prefix is a new family, titled in ``FAMILIES`` or by its prefix).

A rule module defines ``RULE = Rule(...)`` and one of:

- ``check(ctx) -> Iterable[Finding]``: the general form. ``ctx`` is a ``RuleContext``: the Analysis, the event log
  (None when re-analysing an exported Analysis) and views computed once per analysis and shared by every rule
  (``ctx.frame_sites``, ``ctx.break_causes``, ``ctx.recompile_causes``...). Build each finding with
  ``RULE.finding(message=..., fix=..., path=..., line=..., ...)``, which fills code, name and severity::

      RULE = Rule("CMP009", "slow-thing", "warning", "One-line summary", suggester=None)

      def check(ctx):
          for graph in ctx.analysis.graphs:
              if graph.compile_time_s > 60:
                  site, library = ctx.graph_anchor(graph)
                  yield RULE.finding(message=..., fix=..., path=site.path, line=site.line, library_frame=library)

- a claim on graph breaks or recompilations, for rules that compete for the same events: each break cause
  (recompile cause) belongs to exactly one rule, the claiming rule with the lowest ``priority`` whose ``matches``
  accepts it. The module defines ``matches(break)`` (for recompiles ``matches(recompile, failure)``) and words the
  finding with ``message``/``fix`` templates over the event's words (``_breaks.words``: reason, where, function,
  hint; ``_recompiles.words``: frame, subject, kind, dim, dim_index, values, compiled_for, guard), or with
  functions ``message(...)``/``fix(...)`` taking ``matches``'s arguments. Grouping per user line, cascades, counts
  and evidence are shared (``_breaks``, ``_recompiles``)::

      RULE = Rule("BRK007", "my-break", "warning", "One-line summary", claims="breaks", priority=45,
                  message="graph break: ... ({reason}){where}", fix="do this instead")

      def matches(b) -> bool:
          return b.gb_id == "GB0123"

- a claim on the exception that stopped the program (``claims="crashes"``, family CRS): each crash belongs to the
  claiming rule with the lowest ``priority`` whose ``matches(crash)`` accepts it (on the facts analyzer/crash.py
  reads off the event: exception, message, chain, user lines). The module names the kind it owns (``KIND``), may
  place and detail the crash (``describe(crash, ctx)``: ``crash.site``/``policy``/``detail``), and words it with
  ``message(crash, ctx)``, ``fix(crash, ctx)`` and, to put the finding elsewhere than the crash's site,
  ``site(crash, ctx)``; severity, ranking first and evidence are shared (``_crashes``). A crash no rule claims is
  the program's own error.

A rule of a family listed in ``FAMILY_INPUTS`` runs only where the analysis has that family's input (a CRS rule only
after a crash, a LOW rule only with kernels...): its module is not even imported otherwise.
``RULE.suggester`` names the module of ``tdiag.analyzer.suggestions`` that words its fix as code (None: the
generic one). Rules never import suggestions: ``suggestions.attach_suggestions`` runs after them.
``RULE.mark`` is how the TUI's gutter shows the line (``break``, ``recompile``, ``finding``; default by family).
``RULE.cost`` is how ``analyzer/cost.py`` measures a finding (``break``: eager time after its graph; ``compile``;
``kernels``; ``evidence``: seconds the rule measured; ``eager_other``: those, net of sampled frames; ``samples``: the
share of stack samples in its function, for eager frames the profiler cannot name); default by family.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import string
from collections.abc import Callable, Iterable
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding, Frame, Site

FAMILIES = {
    "CRS": "program stopped",  # ranked before every other family in every output
    "BRK": "graph breaks",
    "RCP": "recompilations and guards",
    "DYN": "dynamic shapes",
    "LOW": "lowering and fusion",
    "CMP": "compile cost",
    "DIV": "divergence across ranks",
    "CGR": "CUDA graphs",
    "DST": "distributed training",
    "RUN": "measured runtime",
}
# How a family's line is marked in the TUI's gutter (default: "finding").
FAMILY_MARKS = {"BRK": "break", "RCP": "recompile", "DYN": "recompile", "DIV": "recompile"}
# How a family's findings are costed (analyzer/cost.py's models; default: no cost). A rule overrides it with cost=.
FAMILY_COSTS = {"BRK": "break", "RCP": "compile", "DYN": "compile", "CMP": "compile", "LOW": "kernels", "RUN": "evidence"}
# What every rule of a family reads. Where the analysis lacks it none of them can find anything, and their modules
# are not even imported (a short run's summary needs ~20 of the ~34; issue 26). A family whose rules may find
# something without such an input stays out of this table (DST: DST002 is about nothing having compiled).
# tests/contract/test_rule_inputs.py runs every rule of these families on real records that lack the input.
FAMILY_INPUTS: dict[str, Callable[[RuleContext], bool]] = {
    "CRS": lambda ctx: bool(ctx.analysis.crashes),  # every CRS rule claims the exception that stopped the program
    "CGR": lambda ctx: any(g.cudagraph for g in ctx.analysis.graphs),
    "LOW": lambda ctx: any(g.kernels for g in ctx.analysis.graphs),
    "DIV": lambda ctx: len(ctx.analysis.run.ranks) > 1,
    "RUN": lambda ctx: ctx.measured_window is not None,
}
# Families whose findings exist only because a measured share crossed a threshold (RUN001: time outside compiled
# code, RUN002: GPU idle). Between two runs their appearing or going is a timing delta: `tdiag diff` lists them as new
# or fixed but never counts them as regressions, as it never counts a slower window (analyzer/diff.py).
TIMING_FAMILIES = frozenset({"RUN"})
COST_MODELS = ("break", "compile", "kernels", "evidence", "eager_other", "samples")
SEVERITIES = ("error", "warning", "info")
CLAIMS = ("breaks", "recompiles", "crashes")


@lean_dataclass(frozen=True)
class Rule:
    """A rule's identity and words: code, name, severity, summary, docs; claims, priority, cost model."""

    code: str
    name: str
    severity: str  # the level every finding of the rule has (SARIF's default level, ``tdiag rule``)
    summary: str
    doc: str = ""
    suggester: str | None = None  # module name in tdiag.analyzer.suggestions, imported on first use
    claims: str | None = None  # "breaks" / "recompiles" / "crashes": competes for those events (matches/message/fix)
    priority: int = 50  # among rules claiming the same events, the lowest number that matches owns the event
    message: str = ""  # claiming rules: the finding's message, a template over the event's words (see below)
    fix: str = ""  # claiming rules: the one-line fix, a template likewise
    cost: str | None = None  # how its findings are costed, one of COST_MODELS (None: the family's, FAMILY_COSTS)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"{self.code}: severity {self.severity!r} is not one of {SEVERITIES}")
        if self.claims is not None and self.claims not in CLAIMS:
            raise ValueError(f"{self.code}: claims {self.claims!r} is not one of {CLAIMS}")
        if self.cost is not None and self.cost not in COST_MODELS:
            raise ValueError(f"{self.code}: cost {self.cost!r} is not one of {COST_MODELS}")

    @property
    def family(self) -> str:
        return self.code.rstrip("0123456789")

    @property
    def mark(self) -> str:
        return FAMILY_MARKS.get(self.family, "finding")

    @property
    def cost_model(self) -> str | None:
        return self.cost or FAMILY_COSTS.get(self.family)

    def finding(self, **fields: Any) -> Finding:
        """The one constructor of a rule's Finding: code, name and severity are the rule's."""
        from tdiag.analyzer.model import Finding

        return Finding(code=self.code, name=self.name, severity=self.severity, **fields)


@lean_dataclass(frozen=True)
class Registered:
    """A discovered rule: the Rule, its check, its module."""

    rule: Rule
    check: Callable[[RuleContext], Iterable[Finding] | None]
    module: ModuleType


class RuleContext:
    """What every rule reads: the Analysis, the log, and views of them computed once and shared."""

    def __init__(self, analysis: Analysis, log: Any = None, rules: list[Registered] | None = None):
        self.analysis = analysis
        self.log = log  # the EventLog the analysis was built from (None when re-analysing an exported Analysis)
        self.rules = rules  # the rules run over it (None: every registered rule)
        self.faults: dict[str, BaseException] = {}  # code -> what the rule raised: it loses its findings, only them

    @cached_property
    def measured_window(self):
        """The runtime window of the lowest rank that measured one (a RuntimeSummary), or None."""
        from tdiag.analyzer.rules._runtime_window import lead_window

        return lead_window(self)

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


_MODULES: dict[str, str] | None = None  # code -> module name
_LOADED: dict[str, Registered | None] = {}  # code -> its imported rule (None: the module defines no RULE)


def _load(module: ModuleType) -> Registered | None:
    rule = getattr(module, "RULE", None)
    if rule is None:
        return None
    if not rule.doc:
        rule = dataclasses.replace(rule, doc=(module.__doc__ or "").strip())
    check = getattr(module, "check", None)
    if check is None and rule.claims == "breaks":
        from tdiag.analyzer.rules._breaks import break_check

        check = break_check(rule, module)
    elif check is None and rule.claims == "recompiles":
        from tdiag.analyzer.rules._recompiles import recompile_check

        check = recompile_check(rule, module)
    elif check is None and rule.claims == "crashes":
        from tdiag.analyzer.rules._crashes import crash_check

        if not isinstance(getattr(module, "KIND", None), str):
            raise TypeError(f"{module.__name__}: a rule claiming crashes names the kind it owns: KIND = \"...\"")
        check = crash_check(rule, module)
    if check is None:
        raise TypeError(f"{module.__name__}: a rule module needs check(ctx), or claims= with matches/message/fix")
    _check_templates(rule, module)
    return Registered(rule, check, module)


class TemplateError(ValueError):
    """A claiming rule's message or fix template names a field its claim's words do not provide."""


def _check_templates(rule: Rule, module: ModuleType) -> None:
    """Every ``{placeholder}`` of a claiming rule's templates is a field of its claim's words, checked now rather
    than when a finding is first worded (a typo there would cost the rule its findings in a user's run)."""
    words = _claim_words(rule.claims)
    for part in ("message", "fix"):
        template = getattr(rule, part)
        if not template:
            continue
        if words is None:
            raise TemplateError(f"{module.__name__}: {rule.code} has a {part} template, but only rules claiming "
                                f"breaks or recompiles are worded by templates (claims={rule.claims!r})")
        try:
            fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
        except ValueError as exc:
            raise TemplateError(f"{module.__name__}: {rule.code}'s {part} template {template!r} is malformed: {exc}") from None
        for name in fields:
            base = name.split(".", 1)[0].split("[", 1)[0]
            if base not in words:
                raise TemplateError(f"{module.__name__}: {rule.code}'s {part} template names {{{name}}}, which is not "
                                    f"one of the words of a claimed {rule.claims[:-1]}: {', '.join(words)}")


def _claim_words(claims: str | None) -> tuple[str, ...] | None:
    if claims == "breaks":
        from tdiag.analyzer.rules._breaks import WORDS

        return WORDS
    if claims == "recompiles":
        from tdiag.analyzer.rules._recompiles import WORDS

        return WORDS
    return None


def rule_modules() -> dict[str, str]:
    """code -> module name, from the package's file names (``brk001_data_dependent_branch`` -> BRK001), imported
    by none of this; ``_load`` checks that a module's RULE has the code its file name says."""
    global _MODULES
    if _MODULES is None:
        _MODULES = {}
        for info in pkgutil.iter_modules(__path__):
            code = info.name.split("_", 1)[0].upper()
            if not info.name.startswith("_") and code.rstrip("0123456789") and code[-1:].isdigit():
                _MODULES[code] = f"{__name__}.{info.name}"
    return _MODULES


def _entry(code: str) -> Registered | None:
    if code not in _LOADED:
        module_name = rule_modules().get(code)
        _LOADED[code] = _load(importlib.import_module(module_name)) if module_name else None
        if _LOADED[code] is not None and _LOADED[code].rule.code != code:
            raise TypeError(f"{module_name}: RULE.code is {_LOADED[code].rule.code}, its file name says {code}")
    return _LOADED[code]


def registry() -> dict[str, Registered]:
    """code -> Registered (rule, check, module): every rule, each module imported once."""
    return {code: entry for code in sorted(rule_modules()) if (entry := _entry(code)) is not None}


def applicable(ctx: RuleContext) -> list[Registered]:
    """The rules that can find something in ctx's analysis: families whose input (FAMILY_INPUTS) it has. A rule
    module that fails to load is a fault of that rule (``ctx.faults``), not of the analysis."""
    has_input: dict[str, bool] = {}
    entries = []
    for code in sorted(rule_modules()):
        family = code.rstrip("0123456789")
        present = FAMILY_INPUTS.get(family)
        if present is not None and not has_input.setdefault(family, present(ctx)):
            continue
        try:
            entry = _entry(code)
        except Exception as exc:
            ctx.faults.setdefault(code, exc)
            continue
        if entry is not None:
            entries.append(entry)
    return entries


def claimants(claims: str, rules: list[Registered] | None = None) -> list[Registered]:
    """The rules competing for breaks, recompiles or crashes, in priority order."""
    return sorted((e for e in (registry().values() if rules is None else rules) if e.rule.claims == claims),
                  key=lambda e: (e.rule.priority, e.rule.code))


def all_rules() -> list[Rule]:
    return [entry.rule for entry in registry().values()]


def get_rule(code: str) -> Rule | None:
    entry = _entry(code.upper()) if isinstance(code, str) else None
    return entry.rule if entry else None


def families() -> dict[str, str]:
    """Family prefix -> title, for every family a registered rule belongs to (a new one titled by its prefix)."""
    out = dict(FAMILIES)
    for rule in all_rules():
        out.setdefault(rule.family, rule.family)
    return out


def run_rules(analysis: Analysis, log: Any) -> list[Finding]:
    """Every applicable rule's findings, without suggestions (``suggestions.attach_suggestions`` adds them).

    A rule that raises (its check, its claim's ``matches``, its message or fix) loses only its own findings: the
    fault is kept in ``analysis.run.analysis_problems`` (analyzer/faults.py) and every output says which rule failed.
    """
    from tdiag.analyzer.faults import record_fault

    ctx = RuleContext(analysis, log)
    ctx.rules = applicable(ctx)
    if analysis.crashes:  # the crashes' kinds first: every rule reads whether torch caused one (caused_by_torch)
        try:
            ctx.crash_claims  # noqa: B018 (computed once, shared)
        except Exception as exc:  # the claim itself, not one rule's matches (those are isolated in ``claimed``)
            record_fault(analysis, "analysis", "the crash claims", exc)
    found: dict[str, list[Finding]] = {}
    for entry in ctx.rules:
        code = entry.rule.code
        if code in ctx.faults:
            continue
        while code not in ctx.faults:
            try:
                found[code] = list(entry.check(ctx) or [])
                break
            except _ClaimFault as fault:  # another claimant's matches raised inside this check: that one failed
                ctx.faults.setdefault(fault.code, fault.error)
            except Exception as exc:
                ctx.faults.setdefault(code, exc)
    for code, exc in sorted(ctx.faults.items()):
        record_fault(analysis, "rule", code, exc)
    # a claimant whose matches raised while another rule's check claimed the events has no findings either
    return [f for code, findings in found.items() if code not in ctx.faults for f in findings]
