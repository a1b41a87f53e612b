"""The rules found in this package: one module per rule, discovered from the file names, each imported on first use
and checked (its code, its check or claim, its templates)."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import string
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING

from tdiag.analyzer.rules._rule import FAMILIES, Rule

from tdiag.lean_dataclass import lean_dataclass

if TYPE_CHECKING:
    from tdiag.analyzer.model import Finding
    from tdiag.analyzer.rules._context import RuleContext

PACKAGE = __name__.rpartition(".")[0]

@lean_dataclass(frozen=True)
class Registered:
    """A discovered rule: the Rule, its check, its module."""

    rule: Rule
    check: Callable[[RuleContext], Iterable[Finding] | None]
    module: ModuleType


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
        # the package's __path__, not this file's folder: a package extended with more folders finds their rules too
        for info in pkgutil.iter_modules(importlib.import_module(PACKAGE).__path__):
            code = info.name.split("_", 1)[0].upper()
            if not info.name.startswith("_") and code.rstrip("0123456789") and code[-1:].isdigit():
                _MODULES[code] = f"{PACKAGE}.{info.name}"
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


def claimants(claims: str, rules: list[Registered] | None = None) -> list[Registered]:
    """The rules competing for breaks, recompiles or crashes, in priority order."""
    return sorted((e for e in (registry().values() if rules is None else rules) if e.rule.claims == claims),
                  key=lambda e: (e.rule.priority, e.rule.code))


def all_rules() -> list[Rule]:
    return [entry.rule for entry in registry().values()]


def get_rule(code: str) -> Rule | None:
    entry = _entry(code.upper()) if isinstance(code, str) else None
    return entry.rule if entry else None


def crash_kind(code: str) -> str | None:
    """The kind of crash a rule claiming crashes owns (its module's ``KIND``, the ``Crash.kind`` it sets); None for
    any other rule: what a reader of a CRS finding asks instead of its code."""
    entry = _entry(code.upper()) if isinstance(code, str) else None
    return entry.module.KIND if entry is not None and entry.rule.claims == "crashes" else None


def families() -> dict[str, str]:
    """Family prefix -> title, for every family a registered rule belongs to (a new one titled by its prefix)."""
    out = dict(FAMILIES)
    for rule in all_rules():
        out.setdefault(rule.family, rule.family)
    return out
