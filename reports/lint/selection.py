"""``--select`` / ``--ignore``: which findings a lint run reports, by rule code or prefix (ruff's semantics).

A selector is ``ALL``, a family (``BRK``), a full code (``BRK001``) or any prefix of a known code (``BRK00``).
Ignore wins over select. A selector that names nothing tdiag knows is a usage error, so a typo cannot
silently turn a CI gate off.
"""

from __future__ import annotations

from collections.abc import Iterable

from tdiag.lean_dataclass import lean_dataclass

ALL = "ALL"


class UnknownSelector(ValueError):
    def __init__(self, selectors: list[str]):
        self.selectors = selectors
        super().__init__(", ".join(selectors))


def parse_selectors(values: Iterable[str] | None) -> list[str]:
    """``["BRK,RCP001", "dyn"]`` -> ``["BRK", "RCP001", "DYN"]`` (options may repeat and hold commas)."""
    return [part.strip().upper() for value in values or () for part in value.split(",") if part.strip()]


@lean_dataclass(frozen=True)
class CodeSelection:
    select: tuple[str, ...] = (ALL,)
    ignore: tuple[str, ...] = ()

    def validate(self, known_codes: Iterable[str], families: Iterable[str]) -> None:
        codes, family_set = list(known_codes), set(families)

        def known(selector: str) -> bool:
            return selector == ALL or selector in family_set or any(c.startswith(selector) for c in codes)

        unknown = [s for s in (*self.select, *self.ignore) if not known(s)]
        if unknown:
            raise UnknownSelector(unknown)

    def includes(self, code: str) -> bool:
        return _matches(code, self.select) and not _matches(code, self.ignore)


def _matches(code: str, selectors: tuple[str, ...]) -> bool:
    return any(s == ALL or code.startswith(s) for s in selectors)
