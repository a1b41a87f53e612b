"""Known causes of crashes inside torch.compile's stack (crash_causes.json): the cause in the user's program and the
fix, matched by the exception's type and torch's message. The words of the crash rule that claimed the crash stand
where no entry matches."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class CrashCause:
    id: str
    seen_on: str
    exception: str  # a suffix of the exception's qualified name
    match: str  # regex, searched in torch's message
    cause: str
    fix: str
    # a regex that must also be found in the code of a graph the run compiled: torch's message alone is too generic
    # for some causes (an Inductor stride assertion), the operator in the graph names them
    graph_code: str | None = None


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[CrashCause, ...]:
    data = json.loads(resources.files("tdiag.analyzer").joinpath("crash_causes.json").read_text(encoding="utf-8"))
    return tuple(CrashCause(**entry) for entry in data["entries"])


def cause_of(exception: str | None, message: str | None, graph_codes: tuple[str, ...] = ()) -> CrashCause | None:
    """The entry for a crash of this exception type whose message torch wrote as the entry says (and, where the entry
    asks, one of ``graph_codes``, the run's compiled graphs' code, holds its operator), else None."""
    return next((c for c in catalogue() if (exception or "").endswith(c.exception)
                 and re.search(c.match, message or "", re.S)
                 and (c.graph_code is None or any(re.search(c.graph_code, code) for code in graph_codes))), None)
