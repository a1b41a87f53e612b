"""A patch that inserts a line above the statement torch.compile stops at moves the site's number, not the crash.

Seen on the H200 (benchmarks/gpu_crash.py --kept): CRS007's first candidate, `cudagraph_mark_step_begin()` at the top
of the loop, left the program stopping at the same read of an overwritten CUDA-graph output one line lower, and the
verdict counted "no longer stops the program at generate.py:24 (now at generate.py:25)" as progress, so the
candidate that fixes it (`.clone()`) was never the one kept alone.
"""

from __future__ import annotations

from tdiag.fixing.compare import Metrics, crash_moved


def _stopped_at(site: str, statement: str | None) -> Metrics:
    return Metrics(graphs=1, graph_breaks=0, recompiles=0, eager_fallbacks=0, compile_time_s=0.0, step_time_s=None,
                   steps_measured=0, run_time_s=1.0, exit_code=1, crash_site=site, crash_statement=statement)


def test_the_same_statement_one_line_lower_is_the_same_crash():
    read = "total += float((out - prev).abs().sum())"
    assert not crash_moved(_stopped_at("generate.py:24", read), _stopped_at("generate.py:25", read))


def test_another_statement_or_file_is_progress():
    assert crash_moved(_stopped_at("generate.py:24", "h = model(x)"), _stopped_at("generate.py:30", "y = head(h)"))
    assert crash_moved(_stopped_at("generate.py:24", "h = model(x)"), _stopped_at("other.py:24", "h = model(x)"))


def test_without_the_source_the_number_decides():
    assert crash_moved(_stopped_at("generate.py:24", None), _stopped_at("generate.py:25", None))
    assert not crash_moved(_stopped_at("generate.py:24", None), _stopped_at("generate.py:24", None))
