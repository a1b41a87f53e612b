"""Module-level regular expressions compiled on first use.

The analysis holds ~50 patterns for texts torch prints (crash messages, CUDA-graph logs, guards, generated code).
Compiling them all at import was a measurable part of the end-of-run summary of a short program (issue 26), and a
given record needs only a few of them. ``lazy_regex`` stands in for ``re.compile`` in a module constant: the same
methods (``search``, ``match``, ``finditer``, ``sub``...), compiled when first called.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0):
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # only for what the slots do not hold: the Pattern's own API
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return getattr(self._compiled, name)

    def __repr__(self) -> str:
        return f"lazy_regex({self._source!r})"


def lazy_regex(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, deferred to the first use of the pattern (typed as the Pattern it becomes)."""
    return LazyPattern(source, flags)  # type: ignore[return-value]
