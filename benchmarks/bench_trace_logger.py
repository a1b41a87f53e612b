"""Cost of holding torch.__trace through logging reconfiguration (tracer/trace_logger.py), in one process.

1. Per structured-trace record: torch's own ``trace_log.debug(...)`` call into a plain handler vs into the held
   logger (sink + anchor), same sink work (none), ratio of the medians.
2. Per training step: a compiled step called in steady state, with the held logger attached vs not. Nothing on the
   per-call path of compiled code logs to torch.__trace, so the expected ratio is 1.0 (noise only); the number of
   structured-trace records during the timed steps is printed and must be 0.

    .venv/bin/python benchmarks/bench_trace_logger.py
"""

from __future__ import annotations

import logging
import statistics
import time

import torch
from tdiag.tracer import trace_logger

RECORDS = 20_000
STEPS = 2_000
REPEATS = 5


class Counting(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.n = 0

    def emit(self, record):
        self.n += 1


def per_record_seconds(trace: logging.Logger) -> float:
    extra = {"metadata": {"dynamo_start": {}, "frame_id": 0, "frame_compile_id": 0}, "payload": None}
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        for _ in range(RECORDS):
            trace.debug("", extra=extra)
        times.append((time.perf_counter() - started) / RECORDS)
    return statistics.median(times)


def per_step_seconds(step, x) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        for _ in range(STEPS):
            step(x)
        times.append((time.perf_counter() - started) / STEPS)
    return statistics.median(times)


def main() -> None:
    trace = logging.getLogger(trace_logger.TRACE_LOGGER)
    plain = Counting()
    trace.addHandler(plain)
    plain_record = per_record_seconds(trace)
    trace.removeHandler(plain)
    held = Counting()
    detach = trace_logger.attach(held.emit, fallback=held)
    held_record = per_record_seconds(trace)
    detach()
    # torch's LazyTraceHandler removes itself on its first record while the logger iterates its handlers, so a plain
    # handler after it misses that one record; the held logger's sinks are served before any handler.
    assert held.n == RECORDS * REPEATS and plain.n in (RECORDS * REPEATS, RECORDS * REPEATS - 1), (held.n, plain.n)
    print(f"records seen: plain handler {plain.n}, held logger {held.n} (of {RECORDS * REPEATS})")
    print(f"per record: plain handler {plain_record * 1e6:.2f} us, held logger {held_record * 1e6:.2f} us, "
          f"ratio {held_record / plain_record:.2f}")

    step = torch.compile(lambda x: torch.relu(x @ x).sum(), backend="eager")
    x = torch.randn(16, 16)
    for _ in range(5):
        step(x)  # compiled and settled before timing
    baseline = per_step_seconds(step, x)
    counter = Counting()
    detach = trace_logger.attach(counter.emit, fallback=counter)
    held_step = per_step_seconds(step, x)
    detach()
    print(f"per step: without {baseline * 1e6:.1f} us, held {held_step * 1e6:.1f} us, ratio {held_step / baseline:.2f}; "
          f"structured-trace records during the timed steps: {counter.n}")


if __name__ == "__main__":
    main()
