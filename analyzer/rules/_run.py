"""Running the rules over an analysis: the applicable ones (their family's input present), each fault costing only
that rule's findings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tdiag.analyzer.rules._context import RuleContext, _ClaimFault
from tdiag.analyzer.rules._inputs import FAMILY_INPUTS
from tdiag.analyzer.rules._registry import Registered, _entry, rule_modules

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding


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


def run_rules(analysis: Analysis, log: Any, facts: Any = None) -> list[Finding]:
    """Every applicable rule's findings, without suggestions (``suggestions.attach_suggestions`` adds them).

    A rule that raises (its check, its claim's ``matches``, its message or fix) loses only its own findings: the
    fault is kept in ``analysis.run.analysis_problems`` (analyzer/faults.py) and every output says which rule failed.
    """
    from tdiag.analyzer.faults import record_fault

    ctx = RuleContext(analysis, log, facts=facts)
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


def judge(facts: Any) -> None:
    """The rules stage of analyzer/stages.py: every applicable rule's findings, from the facts of the stages before."""
    facts.analysis.findings = run_rules(facts.analysis, facts.log, facts)
