"""A bounded runtime window: after compilation settles, measure a few steps of the program's own execution.

A *step* is one outermost call of the first compiled callable the program calls (its model, usually). Every callable
that ``torch.compile`` returns is wrapped so that its entry is seen; the window opens at a step boundary once that
callable ran ``settle`` steps without any compile, and closes at the boundary ``steps`` steps later (or after
``seconds``, checked at boundaries). Inside it, ``torch.profiler`` (Kineto; CPU, plus CUDA activity when a GPU is
present) records; at its end the events are reduced in-process to a compact timeline (``profile_timeline``) and
written as one ``runtime`` event. Then the profiler is gone and every wrapper is a single flag check.

A program that ends before a window completed gets a ``runtime`` event saying so (``status: not_measured``), never
numbers for a partial window.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tdiag.tracer import dynamo_skip

Write = Callable[[dict[str, Any]], None]

# Safety bound: a window whose next step boundary never comes (the program left its loop) is abandoned this long after
# it should have ended, so the profiler never runs on through the rest of a long program.
ABANDON_AFTER_S = 10.0


@dataclass(frozen=True)
class WindowSpec:
    steps: int = 20  # measured steps
    settle: int = 3  # steps without a compile before the window opens
    seconds: float = 2.0  # the window also closes at the first step boundary after this long


def parse_window(text: str) -> WindowSpec:
    """``STEPS[:SETTLE[:SECONDS]]``, e.g. ``20``, ``10:5``, ``50:3:5``."""
    parts = text.split(":")
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"--profile-window expects STEPS[:SETTLE[:SECONDS]], got {text!r}")
    try:
        steps = int(parts[0])
        settle = int(parts[1]) if len(parts) > 1 and parts[1] else WindowSpec.settle
        seconds = float(parts[2]) if len(parts) > 2 and parts[2] else WindowSpec.seconds
    except ValueError:
        raise ValueError(f"--profile-window expects STEPS[:SETTLE[:SECONDS]], got {text!r}") from None
    if steps < 1 or settle < 0 or not seconds > 0:
        raise ValueError(f"--profile-window needs STEPS >= 1, SETTLE >= 0 and SECONDS > 0, got {text!r}")
    return WindowSpec(steps, settle, seconds)


def _stop_in_child(window: weakref.ref) -> None:
    live = window()
    if live is not None:
        live.active = False
        live.state = "done"
        live._profiler = None  # the parent's profiler object: never stopped or read from the child


class RuntimeWindow:
    """Counts steps, opens and closes the profiler at step boundaries, writes the ``runtime`` event."""

    def __init__(self, write: Write, spec: WindowSpec | None = None):
        self.write = write
        self.spec = spec or WindowSpec()
        self.state = "settling"  # settling -> measuring -> done
        self.active = True  # read by every wrapper; False makes them plain pass-throughs
        self._main = threading.main_thread().ident
        self._depth = 0
        self._anchor: int | None = None  # id of the wrapper whose calls are steps
        self._anchor_name = ""
        self._steps_seen = 0
        self._quiet = 0  # steps since the last compile
        self._compiled_since_step = False
        self._compile_open: dict[Any, float] = {}
        self._compiles: list[tuple[str | None, float, float]] = []
        self._profiler: Any = None
        self._t0 = 0.0
        self._t0_wall = 0.0
        self._measured_steps = 0
        self._undo: Callable[[], None] | None = None

    # -- installation -------------------------------------------------------------------------------------------
    def install(self) -> Callable[[], None] | None:
        """Wrap what torch.compile returns; ``None`` when this torch has no such entry point.

        Raises ``DynamoSkipUnavailable`` (nothing installed) when this torch cannot be told to skip the wrapper: a
        wrapper Dynamo could compile would change what the program compiles (docs/runtime-window.md).
        """
        try:
            from torch._dynamo.eval_frame import _TorchDynamoContext
        except Exception:
            return None
        # the wrapper, and every method torch's hooks call while a compiled frame's eager part may be running
        dynamo_skip.hide(dynamo_skip.nested_code(_wrapper, "compiled_step"), *dynamo_skip.codes_of(RuntimeWindow))
        original = _TorchDynamoContext.__call__
        window = self

        def __call__(ctx: Any, fn: Any) -> Any:
            result = original(ctx, fn)
            if window.active and type(result).__name__ == "function":  # a module's forward comes through here too
                return window._wrap(result)
            return result

        _TorchDynamoContext.__call__ = __call__
        # A forked child (DataLoader worker, Pool) inherits the window; starting the profiler there would measure
        # the wrong process and can hang it. Children never measure. (A callback cannot be unregistered: weak.)
        own = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _stop_in_child(own))

        def undo() -> None:
            if _TorchDynamoContext.__call__ is __call__:
                _TorchDynamoContext.__call__ = original

        self._undo = undo
        return undo

    def _wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return _wrapper(self, fn)

    # -- compile brackets (from tracer.progress) ----------------------------------------------------------------
    def on_compile(self, event: dict[str, Any]) -> None:
        if self.state == "done":
            return
        key = event.get("compile_id")
        if event.get("type") == "compile_start":
            self._compiled_since_step = True
            self._quiet = 0
            self._compile_open[key] = time.time()
        elif event.get("type") == "compile_end":
            start = self._compile_open.pop(key, None)
            if start is not None and self.state == "measuring":
                self._compiles.append((key, start, time.time()))

    # -- the window ---------------------------------------------------------------------------------------------
    def _step_boundary(self, wrapper: Callable[..., Any]) -> None:
        try:
            if self.state == "measuring" and time.perf_counter() - self._t0 > self.spec.seconds + ABANDON_AFTER_S:
                self._abandon("no step boundary came within %.0f s of the window's end" % ABANDON_AFTER_S)
                return
            if self._anchor is None:
                self._anchor = id(wrapper)
                self._anchor_name = getattr(wrapper, "__qualname__", "") or ""
            if id(wrapper) != self._anchor:
                return
            self._steps_seen += 1
            if self.state == "settling":
                if self._compiled_since_step:
                    self._compiled_since_step = False
                elif self._steps_seen > 1:
                    self._quiet += 1
                if self._quiet >= self.spec.settle and self._steps_seen > 1:
                    self._start()
            elif self.state == "measuring":
                self._measured_steps += 1
                if self._measured_steps >= self.spec.steps or time.perf_counter() - self._t0 >= self.spec.seconds:
                    self._stop()
        except Exception as exc:  # measurement is extra: never let it break the program
            self._give_up(f"runtime measurement failed: {type(exc).__name__}: {exc}")

    def _start(self) -> None:
        import torch
        from torch.profiler import ProfilerActivity, profile

        activities = [ProfilerActivity.CPU]
        self._cuda = bool(torch.cuda.is_available() and torch.cuda.is_initialized())
        if self._cuda:
            activities.append(ProfilerActivity.CUDA)
            torch.cuda.synchronize()  # the window starts with the device idle, so its kernels are this window's
        self._profiler = profile(activities=activities)
        with _quiet_stderr():
            self._profiler.start()
        self.state = "measuring"
        self._compiles = []
        self._measured_steps = 0
        self._t0_wall = time.time()
        self._t0 = time.perf_counter()

    def _stop(self) -> None:
        import torch

        if self._cuda:
            torch.cuda.synchronize()
        window_s = time.perf_counter() - self._t0
        t1_wall = self._t0_wall + window_s
        profiler, self._profiler = self._profiler, None
        with _quiet_stderr():
            profiler.stop()
        self._finish()
        from tdiag.tracer.profile_timeline import timeline

        event = timeline(profiler, self._t0_wall, t1_wall, self._compiles)
        event.update(
            type="runtime",
            status="measured",
            steps=self._measured_steps,
            settle=self.spec.settle,
            step_function=self._anchor_name,
            window_s=window_s,
            window_us=int(window_s * 1e6),
            device="cuda" if self._cuda else "cpu",
        )
        self.write(event)

    def _abandon(self, reason: str) -> None:
        profiler, self._profiler = self._profiler, None
        try:
            with _quiet_stderr():
                profiler.stop()
        finally:
            self._finish()
            self.write({"type": "runtime", "status": "not_measured", "reason": reason, "steps_seen": self._steps_seen})

    def _give_up(self, reason: str) -> None:
        if self._profiler is not None:
            try:
                with _quiet_stderr():
                    self._profiler.stop()
            except Exception:  # not a loss: giving up already writes the window as not_measured, with the reason
                pass
            self._profiler = None
        self._finish()
        self.write({"type": "runtime", "status": "not_measured", "reason": reason, "steps_seen": self._steps_seen})

    def _finish(self) -> None:
        self.state = "done"
        self.active = False
        if self._undo is not None:
            self._undo()

    def close(self) -> None:
        """At the end of the capture: a window that did not complete is reported as not measured."""
        if self.state == "done":
            return
        if self._steps_seen == 0:
            reason = "no compiled function was called"
        elif self.state == "measuring":
            reason = (
                f"program ended after {self._steps_seen} steps, {self._measured_steps} of {self.spec.steps} "
                "into the window"
            )
        else:
            reason = (
                f"program ended after {self._steps_seen} steps, before compilation settled "
                f"({self.spec.settle} steps without a compile are needed first)"
            )
        if self._profiler is not None:
            self._abandon(reason)
        else:
            self._finish()
            self.write({"type": "runtime", "status": "not_measured", "reason": reason, "steps_seen": self._steps_seen})


def _wrapper(window: RuntimeWindow, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Every wrapper shares one code object, which ``install`` told Dynamo's frame evaluator to skip, recursively
    (``dynamo_skip``): Dynamo never compiles it nor anything tdiag runs from it, whatever callback is active when it
    is called (the eager part of an outer compiled frame). ``fn`` (torch's own compile wrapper) sets its own callback
    on entry, as it always does, so the program's compiled code is reached exactly as without tdiag."""

    @functools.wraps(fn)  # copies torch's _torchdynamo_* attributes: a tracing Dynamo inlines what fn would inline
    def compiled_step(*args: Any, **kwargs: Any) -> Any:
        if not window.active or window._depth or threading.get_ident() != window._main:
            return fn(*args, **kwargs)
        window._step_boundary(compiled_step)
        window._depth = 1
        try:
            return fn(*args, **kwargs)
        finally:
            window._depth = 0

    compiled_step._torchdynamo_wrapper_id = id(compiled_step)  # torch's innermost_fn unwraps us to fn
    return compiled_step


@contextlib.contextmanager
def _quiet_stderr():
    """Kineto prints ``profiler_start``/``profiler_stop`` lines on fd 2 from C++; the program's stderr must stay its own.
    Only fd 2 is redirected, only for the start/stop call (milliseconds), on the program's main thread."""
    import os
    import sys

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
