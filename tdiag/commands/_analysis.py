"""Every command that takes a RECORD loads it here, so all of them fail the same way on a bad one."""

from __future__ import annotations

from pathlib import Path

from tdiag.errors import TdiagError


class AnalysisFailed(Exception):
    """A bug in the analysis of a record. The CLI reports it as an internal error: exit 2 (never 1, "findings"),
    one line, and the original exception's traceback kept (``-v`` prints it, a file keeps it)."""


def load_analysis(record: str):
    """The Analysis of a run directory or event file; a bad record is a TdiagError, a bug an AnalysisFailed."""
    from tdiag.analyzer import build

    if not Path(record).exists():
        raise TdiagError(f"no record at {record}")
    try:
        analysis = build(record)
    except TdiagError:
        raise
    except Exception as exc:
        raise AnalysisFailed(f"while analysing {record}: {type(exc).__name__}: {exc}") from exc
    from tdiag.fixing.saved import load_verification

    # `tdiag fix --verify` keeps its result next to the record; every output shows it from the Analysis.
    record_dir = Path(record) if Path(record).is_dir() else Path(record).parent
    analysis.verification = load_verification(record_dir)
    from tdiag.analyzer.fix_status import apply_verification

    apply_verification(analysis, analysis.verification)  # each fix line verified, refused, or still unverified
    return analysis
