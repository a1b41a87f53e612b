"""Compiler-side hooks never raise into torch; what they swallow is counted into the record instead.

The session's ``failed(what, exc)`` writes a ``capture_problem`` event (see ``tdiag.tracer.problems``), so an
incomplete capture is never read as an all-clear. A session without it (a bare writer in a test) just drops it.
A private touchpoint this torch lacks goes to the session's ``missing(touchpoint, lost)`` the same way.
"""

from __future__ import annotations

from typing import Any


def missing(session: Any, touchpoint: str, lost: str) -> None:
    """This torch lacks ``touchpoint``: a capture problem through the session's ``missing`` (tracer/problems.py)."""
    record = getattr(session, "missing", None)
    if callable(record):
        try:
            record(touchpoint, lost)
        except Exception:
            return


def report(session: Any, what: str, exc: BaseException) -> None:
    failed = getattr(session, "failed", None)
    if callable(failed):
        try:
            failed(what, exc)
        except Exception:  # counting must not become a failure of its own
            return
