"""The last ``tdiag fix --verify`` result, kept next to the record (``RECORD/fix/verification.json``).

Every command that loads a record reads it (``tdiag report`` and the TUI show it), so reading it needs json and
nothing of the fix flow: tests/fix/test_fix_flow_imports.py checks that loading a record imports no other module of
tdiag.fixing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

VERIFICATION_FILE = "verification.json"


def save_verification(record_dir: Path, data: dict[str, Any]) -> None:
    """``data`` (FixReport.to_dict) next to the record, with the time it was measured."""
    fix_dir = Path(record_dir) / "fix"
    try:
        fix_dir.mkdir(exist_ok=True)
        text = json.dumps({"time": time.time(), **data}, indent=2, default=str) + "\n"
        (fix_dir / VERIFICATION_FILE).write_text(text)
    except OSError:
        pass  # a read-only record still gets its result printed


def load_verification(record_dir: Path) -> dict[str, Any] | None:
    """The last ``--verify`` result saved next to a record, or None."""
    path = Path(record_dir) / "fix" / VERIFICATION_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None
