"""A compiler-side hook that fails while torch logs is counted into the record, not dropped (no silent all-clear)."""

from __future__ import annotations

import logging

from tdiag.compiler import cudagraph_watch
from tdiag.tracer.problems import CaptureProblems

from tdiag.record import RecordWriter


class BrokenSession:
    """A session whose record refuses the hook's event: what the hook swallows must reach ``failed``."""

    def __init__(self, problems: CaptureProblems):
        self.problems = problems

    def write(self, event):
        raise OSError("record unavailable")

    def failed(self, what, exc):
        self.problems.failed(what, exc)


def test_cudagraph_watcher_failure_is_counted(tmp_path):
    writer = RecordWriter(tmp_path / "events.jsonl", {"argv": ["x.py"]})
    problems = CaptureProblems(writer.write)
    logger = logging.getLogger("tdiag.test.cudagraphs")
    watcher = cudagraph_watch.DecisionFilter(BrokenSession(problems), logger, logging.WARNING)
    record = logger.makeRecord(logger.name, logging.INFO, __file__, 1, "skipping cudagraphs due to %s", ("x",), None)
    assert watcher.filter(record) is False  # the program's logging is untouched: INFO stays below its WARNING
    assert problems.total == 1
    writer.close()
    events = [line for line in (tmp_path / "events.jsonl").read_text().splitlines() if "capture_problem" in line]
    assert len(events) == 1 and "CUDA-graph log watcher" in events[0] and "OSError" in events[0]
