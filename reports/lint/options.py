"""What a renderer may be told besides the Analysis."""

from __future__ import annotations

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class LintOptions:
    # How the user named the record, for the footer's "tdiag tui RECORD" hint; None leaves a placeholder.
    record: str | None = None
    # Lines of source shown above and below a finding's line in the full format.
    context_lines: int = 1
