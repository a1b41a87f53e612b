"""The one adapter from the server onto ``tdiag fix``: the entry points ``tdiag/commands/fix.py`` calls, nothing below
them, so a change of ``tdiag.fixing``'s internals (its rounds) is re-pointed here alone.

Safety an agent host can trust: ``apply`` always verifies first and writes only what verified and paid (never
``--force``: a stale file, uncommitted changes or a worse run write nothing); the result says how to undo it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tdiag.errors import TdiagError


def fix(record: Path, analysis, select: list[str] | None, ignore: list[str] | None, verify: bool, apply: bool,
        each: bool, repeat: int, rounds: int, timeout_s: float | None) -> dict[str, Any]:
    from tdiag.commands._selection import selected_codes
    from tdiag.fixing.loop import FixOptions
    from tdiag.fixing.loop import fix as run_fix

    if repeat < 1 or rounds < 1:
        raise TdiagError("repeat and rounds take a count of at least 1")
    verify = verify or apply  # apply writes only verified patches
    codes = selected_codes(select, ignore)
    options = FixOptions(select=codes or ["<no rule>"], ignore=[], apply=apply, verify=verify, each=each and verify,
                         force=False, timeout=timeout_s, repeat=repeat, max_rounds=rounds)
    report = run_fix(str(record), analysis, options)
    data = report.to_dict()
    data["verified"] = verify
    if report.applied is not None:
        data["undo"] = {"manifest": str(report.applied.manifest),
                        "how": "call undo_fix with this record (or run `tdiag fix RECORD --undo`)"}
    return data


def undo(record: Path) -> dict[str, Any]:
    from tdiag.fixing.undo import undo as restore

    manifest, restored = restore(record if record.is_dir() else record.parent, False)
    return {"restored": restored, "manifest": str(manifest)}
