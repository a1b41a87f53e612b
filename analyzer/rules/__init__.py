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
``RULE.suggester`` names the patch kind that words its fix as code, a key of ``suggestions/kinds.py``'s
``PATCH_KINDS`` (None: the generic words). Rules never import suggestions: ``suggestions.attach_suggestions`` runs after them.
``RULE.mark`` is how the TUI's gutter shows the line (``break``, ``recompile``, ``finding``; default by family).
``RULE.cost`` is how ``analyzer/cost.py`` measures a finding (``break``: eager time after its graph; ``compile``;
``kernels``; ``evidence``: seconds the rule measured; ``eager_other``: those, net of sampled frames; ``samples``: the
share of stack samples in its function, for eager frames the profiler cannot name); default by family.
``RULE.stops_compilation`` says its findings mean a whole function was not compiled (analyzer/ranking.py ranks them
first among the fixable). Outside this package a finding is read by what its rule declares or its evidence carries
(``get_rule(code)``, ``crash_kind(code)``, ``evidence_as``), never by its code: a code is written only in its rule's
module (tests/contract/test_code_literals.py).
"""

from tdiag.analyzer.rules._context import RuleContext, _ClaimFault, _ClaimGuard
from tdiag.analyzer.rules._inputs import FAMILY_INPUTS
from tdiag.analyzer.rules._registry import (
    _LOADED,
    Registered,
    TemplateError,
    _entry,
    _load,
    all_rules,
    claimants,
    crash_kind,
    families,
    get_rule,
    registry,
    rule_modules,
)
from tdiag.analyzer.rules._rule import (
    BREAK_FAMILIES,
    CLAIMS,
    COST_MODELS,
    FAMILIES,
    FAMILY_COSTS,
    FAMILY_MARKS,
    MOOT_WHEN_STOPPED,
    WRONG_RESULT_FAMILIES,
    RECOMPILE_FAMILIES,
    SEVERITIES,
    TIMING_FAMILIES,
    Rule,
)
from tdiag.analyzer.rules._run import applicable, judge, run_rules

__all__ = [
    "BREAK_FAMILIES", "MOOT_WHEN_STOPPED", "WRONG_RESULT_FAMILIES", "RECOMPILE_FAMILIES", "CLAIMS", "COST_MODELS", "FAMILIES", "FAMILY_COSTS", "FAMILY_INPUTS", "FAMILY_MARKS", "SEVERITIES",
    "TIMING_FAMILIES", "Registered", "Rule", "RuleContext", "TemplateError", "all_rules", "applicable", "claimants",
    "crash_kind", "families", "get_rule", "judge", "registry", "rule_modules", "run_rules", "_LOADED", "_ClaimFault",
    "_ClaimGuard", "_entry", "_load",
]
