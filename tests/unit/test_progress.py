"""Progress on tdiag's own long steps: drawn by rich on a terminal, nothing at all on a pipe or a CI log."""

from __future__ import annotations

import io

from tdiag.reports.progress import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_written_when_not_a_terminal():
    stream = io.StringIO()
    with progress("tdiag: eager run 1 of 3", total=3, stream=stream) as steps:
        steps.advance("tdiag: eager run 2 of 3")
    assert stream.getvalue() == ""


def test_a_terminal_sees_the_step_and_its_count_and_nothing_is_left_behind_when_quiet():
    stream = Terminal()
    with progress("tdiag: eager run 1 of 3", total=3, stream=stream) as steps:
        steps.advance("tdiag: eager run 2 of 3")
    assert "eager run" in stream.getvalue() and "/3" in stream.getvalue()
    quiet = Terminal()
    with progress("tdiag: analysing", stream=quiet, enabled=False):
        pass
    assert quiet.getvalue() == ""
