"""``--select`` / ``--ignore`` for every command that picks findings by rule (lint, fix): ruff's semantics, one place.

``ALL``, a family, a code or any prefix of a known code; a selector that names no known rule is a usage error, so a
typo cannot silently select nothing (or turn a CI gate off).
"""

from __future__ import annotations

from collections.abc import Iterable

from tdiag.errors import TdiagError


def code_selection(select: Iterable[str] | None, ignore: Iterable[str] | None):
    """A validated ``CodeSelection``; options may repeat and hold commas (``["BRK,RCP001", "dyn"]``)."""
    from tdiag.analyzer.rules import families, registry
    from tdiag.reports.lint.selection import ALL, CodeSelection, UnknownSelector, parse_selectors

    selection = CodeSelection(tuple(parse_selectors(select)) or (ALL,), tuple(parse_selectors(ignore)))
    try:
        selection.validate(registry(), families())
    except UnknownSelector as exc:
        raise TdiagError(f"unknown rule code or prefix: {exc} (see `tdiag rule --all`)") from None
    return selection


def selected_codes(select: Iterable[str] | None, ignore: Iterable[str] | None) -> list[str]:
    """Every known rule code the selection keeps."""
    from tdiag.analyzer.rules import registry

    selection = code_selection(select, ignore)
    return [code for code in registry() if selection.includes(code)]
