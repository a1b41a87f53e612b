"""One layer finishes a finding (analyzer/finish.py): on real records, the summary `tdiag run` printed, lint, JSON,
HTML, the TUI and the notebook view show each finding with the same message and fix, in the same order. The corpus
(tests/corpus) and the library programs (tests/library) check the same on their records."""

from __future__ import annotations

import pytest
from outputs_agree import disagreements

PROGRAMS = ["batch_size_change.py", "data_dependent_if.py", "item_call.py", "print_call.py", "third_party_call.py",
            "recompile_limit.py", "scalar_arg_change.py", "nested_break.py", "raises.py"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_output_shows_the_same_finding(recorded, program):
    run_dir, proc = recorded(program)
    assert (run_dir / "events.jsonl").exists() or list(run_dir.glob("events*.jsonl")), proc.stderr
    assert not disagreements(run_dir, proc.stderr)


def test_a_measured_record_agrees_too(hot_loop_record):
    assert not disagreements(hot_loop_record)
