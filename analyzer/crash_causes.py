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


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[CrashCause, ...]:
    data = json.loads(resources.files("tdiag.analyzer").joinpath("crash_causes.json").read_text(encoding="utf-8"))
    return tuple(CrashCause(**entry) for entry in data["entries"])


def cause_of(exception: str | None, message: str | None) -> CrashCause | None:
    """The entry for a crash of this exception type whose message torch wrote as the entry says, else None."""
    return next((c for c in catalogue() if (exception or "").endswith(c.exception)
                 and re.search(c.match, message or "", re.S)), None)
