"""Every command that takes a RECORD loads it here, so all of them fail the same way on a bad one."""

from __future__ import annotations

from pathlib import Path

from tdiag.errors import TdiagError


def load_analysis(record: str):
    """The Analysis of a run directory or event file; any failure is a TdiagError (exit 2), never a traceback."""
    from tdiag.analyzer import build

    if not Path(record).exists():
        raise TdiagError(f"no record at {record}")
    try:
        analysis = build(record)
    except TdiagError:
        raise
    except Exception as exc:  # an internal error must read as exit 2, never as "findings" (1) or a regression
        raise TdiagError(f"internal error while analysing {record}: {type(exc).__name__}: {exc}") from exc
    from tdiag.fixing.loop import load_verification

    # `tdiag fix --verify` keeps its result next to the record; every output shows it from the Analysis.
    record_dir = Path(record) if Path(record).is_dir() else Path(record).parent
    analysis.verification = load_verification(record_dir)
    return analysis
