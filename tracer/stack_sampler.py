"""Sample the stepping thread's Python stack while the runtime window is open: which functions the step's time was
spent in, for eager code the profiler cannot name (a frame Dynamo skipped, a frame past the recompile limit).

The profiler's own Python tracing (``with_stack``) would slow every Python call inside the window and distort every
other measured number; a sampler thread costs one stack walk per sample and only inside the window. The result is
statistical: per function, the share of samples in which it was on the stack (at any depth).
"""

from __future__ import annotations

import sys
import threading
from collections import Counter

INTERVAL_S = 0.0005
MAX_DEPTH = 128
MAX_KEYS = 500


class StackSampler:
    def __init__(self, thread_id: int, interval_s: float = INTERVAL_S):
        self._target = thread_id
        self._interval = interval_s
        self._stop = threading.Event()
        self._counts: Counter[str] = Counter()
        self._total = 0
        self._thread = threading.Thread(target=self._run, name="tdiag-stack-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> dict[str, object]:
        """Stop sampling; ``{"total": samples, "frames": {"path:firstline:name": samples on the stack}}``."""
        self._stop.set()
        self._thread.join(timeout=1.0)
        return {"total": self._total, "frames": dict(self._counts.most_common(MAX_KEYS))}

    def _run(self) -> None:
        frames = sys._current_frames
        while not self._stop.wait(self._interval):
            frame = frames().get(self._target)
            if frame is None:
                continue
            seen = set()
            depth = 0
            while frame is not None and depth < MAX_DEPTH:
                code = frame.f_code
                seen.add(f"{code.co_filename}:{code.co_firstlineno}:{code.co_name}")
                frame = frame.f_back
                depth += 1
            self._counts.update(seen)
            self._total += 1
