"""Sample the stepping thread's Python stack while the runtime window is open: which functions the step's time was
spent in, for eager code the profiler cannot name (a frame Dynamo skipped, a frame past the recompile limit).

The profiler's own Python tracing (``with_stack``) would slow every Python call inside the window and distort every
other measured number; a sampler thread costs one stack walk per sample and only inside the window. The result is
statistical: per function, the share of samples in which it was on the stack (at any depth), and the share in which
compiled code it entered was running (a compiled graph is called through Dynamo's ``_fn`` wrapper in eval_frame.py):
an eager frame's own time is the difference (issue 32: a skipped forward whose blocks are compiled).
"""

from __future__ import annotations

import sys
import threading
from collections import Counter

INTERVAL_S = 0.0005
MAX_DEPTH = 128
MAX_KEYS = 500
# The frame through which compiled code runs: the disable() wrapper Dynamo puts around each compiled graph.
COMPILED_CALL = ("_fn", ("torch/_dynamo/eval_frame.py", "torch\\_dynamo\\eval_frame.py"))


class StackSampler:
    def __init__(self, thread_id: int, interval_s: float = INTERVAL_S):
        self._target = thread_id
        self._interval = interval_s
        self._stop = threading.Event()
        self._counts: Counter[str] = Counter()
        self._compiled_inside: Counter[str] = Counter()  # samples in which compiled code ran below the function
        self._total = 0
        self._thread = threading.Thread(target=self._run, name="tdiag-stack-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> dict[str, object]:
        """Stop sampling; ``{"total": samples, "frames": {"path:firstline:name": samples on the stack},
        "compiled_inside": {key: samples in which compiled code it entered was running}}``."""
        self._stop.set()
        self._thread.join(timeout=1.0)
        frames = dict(self._counts.most_common(MAX_KEYS))
        return {"total": self._total, "frames": frames,
                "compiled_inside": {k: n for k, n in self._compiled_inside.items() if k in frames}}

    def _run(self) -> None:
        frames = sys._current_frames
        name, files = COMPILED_CALL
        while not self._stop.wait(self._interval):
            frame = frames().get(self._target)
            if frame is None:
                continue
            seen = set()
            outer = set()  # the functions outside the innermost compiled call: compiled code runs inside them
            inside_compiled = False
            depth = 0
            while frame is not None and depth < MAX_DEPTH:
                code = frame.f_code
                key = f"{code.co_filename}:{code.co_firstlineno}:{code.co_name}"
                seen.add(key)
                if inside_compiled:
                    outer.add(key)
                elif code.co_name == name and code.co_filename.endswith(files):
                    inside_compiled = True
                frame = frame.f_back
                depth += 1
            self._counts.update(seen)
            self._compiled_inside.update(outer)
            self._total += 1
