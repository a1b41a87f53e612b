"""Rule registry: one module per rule, named ``<code>_<snake_name>.py``, each with ``RULE`` and ``check(ctx)``.

A rule module's docstring (What it does / Why is this bad? / Example / Use instead) is the ``tdiag rule CODE`` text
and the SARIF description. Codes are stable and never reused; families are ruff-style prefixes. ``RULE.suggester``
names the module of ``tdiag.analyzer.suggestions`` that words its fix (None: the generic one), so adding a rule
touches one file. Rules never import suggestions: ``suggestions.attach_suggestions`` runs after them.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding

FAMILIES = {
    "BRK": "graph breaks",
    "RCP": "recompilations and guards",
    "DYN": "dynamic shapes",
    "LOW": "lowering and fusion",
    "CMP": "compile cost",
    "DIV": "divergence across ranks",
    "CGR": "CUDA graphs",
    "DST": "distributed training",
    "RUN": "measured runtime outside compiled code",
}


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    doc: str = ""
    suggester: str | None = None  # module name in tdiag.analyzer.suggestions, imported on first use

    @property
    def family(self) -> str:
        return self.code.rstrip("0123456789")


@dataclass
class RuleContext:
    analysis: Analysis
    log: Any  # the EventLog the analysis was built from (None when re-analysing an exported Analysis)


_REGISTRY: dict[str, tuple[Rule, Any]] | None = None


def registry() -> dict[str, tuple[Rule, Any]]:
    """code -> (Rule, check function), discovered once from this package."""
    global _REGISTRY
    if _REGISTRY is None:
        found = {}
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            rule = getattr(module, "RULE", None)
            if rule is None:
                continue
            if not rule.doc:
                rule = dataclasses.replace(rule, doc=(module.__doc__ or "").strip())
            found[rule.code] = (rule, module.check)
        _REGISTRY = dict(sorted(found.items()))
    return _REGISTRY


def all_rules() -> list[Rule]:
    return [rule for rule, _ in registry().values()]


def get_rule(code: str) -> Rule | None:
    entry = registry().get(code.upper())
    return entry[0] if entry else None


def run_rules(analysis: Analysis, log: Any) -> list[Finding]:
    """Every rule's findings, without suggestions (``suggestions.attach_suggestions`` adds them)."""
    ctx = RuleContext(analysis, log)
    findings: list[Finding] = []
    for _rule, check in registry().values():
        produced: Iterable[Finding] = check(ctx) or []
        findings.extend(produced)
    return findings
