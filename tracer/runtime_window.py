"""A bounded runtime window: after compilation settles, measure a few steps of the program's own execution.

A *step* is one outermost call (not a call from inside another compiled callable) of the program's step callable:
the first-entered compiled callable that is entered again. A loop repeats; a setup function compiled first and
called once does not, so the loop that calls another function 400 times is measured over that function; a loop that
calls ``once`` and then ``hot`` 50 times is measured over ``once`` (its iterations: whole cycles, with ``hot``'s
calls inside them counted); generate called once is measured over its decode steps. Until a callable repeats the
step is provisional; when an earlier-entered one repeats, the step moves to it and a window already open is dropped
and settles again. Every callable that ``torch.compile`` returns is wrapped so
that its entry is seen; the window opens at a step boundary once the step ran ``settle`` steps without any compile,
and closes at the boundary ``steps`` steps later (or after ``seconds``, checked at boundaries). Inside it,
``torch.profiler`` (Kineto; CPU, plus CUDA activity when a GPU is present) records; at its end the events are
reduced in-process to a compact timeline (``profile_timeline``) and written as one ``runtime`` event. Then the
profiler is gone and every wrapper is a single flag check.

After the window, the same number of steps (``steady``, where given; or seconds) is timed again at step boundaries
with the profiler gone (``runtime_steady``): the program's own speed, unobserved. On a step of a millisecond or two (CUDA graphs) the
profiler's own cost is a large share of the window's; the breakdown keeps the window's shares, the step time is the
steady one. A step in which a compile or CUDA-graph recording begins is not timed (a steady step compiles nothing);
the steps after it are (an epoch loop's last batch of another size records again in the next epoch).

A step called from nested loops has boundaries far apart at each outer iteration's end (evaluation, printing, a
checkpoint) and where a new shape compiles. Such a step stays in the window, counted (the analyzer names the steps
far longer than the median); a boundary that comes ``ABANDON_AFTER_S`` past the window's end closes the window at the
boundary before it, that step not counted (``cut``), or, with no step measured yet and a compile in it, lets the
window settle again.

A program that ends inside the window keeps what it measured: the window ends at the last step boundary it passed
and is labelled partial with the steps it holds (never extrapolated). A program that ends before one measured step
gets a ``runtime`` event saying why (``status: not_measured``) and what would measure it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from tdiag.tracer import dynamo_skip

from tdiag.lean_dataclass import lean_dataclass

Write = Callable[[dict[str, Any]], None]

# A step boundary that comes this long after the window should have ended is late: the step before it held something
# other than steps (a compile of a new shape, an outer loop's end: evaluation, checkpointing, a loader's restart). The
# window ends at the boundary before it (that step is not counted), or, where it measured no step yet and that step
# compiled, settles again (issue 64: a ViT whose last batch of the first epoch recompiled for longer than this was
# "not measured" before).
ABANDON_AFTER_S = 10.0


@lean_dataclass(frozen=True)
class WindowSpec:
    """Where the runtime window opens and how long it lasts (``--profile-window``)."""

    steps: int = 20  # measured steps
    # steps without a compile before the window opens: a training step compiles in its first call (forward and
    # backward) and often once more in its second (optimizer state, automatic dynamic); 2 quiet steps after that
    # open the window at step 4 at the latest, so a 6-step run measures 2 and a 10-step run 6
    settle: int = 2
    seconds: float = 2.0  # the window also closes at the first step boundary after this long
    # steps timed after the window without the profiler (None: as many as the window's). `tdiag fix --verify` asks
    # for more than a short program's window holds: its step-time verdicts need 10 steady steps
    steady: int | None = None

    @property
    def steady_steps(self) -> int:
        return self.steps if self.steady is None else self.steady


WINDOW_FORMAT = "STEPS[:SETTLE[:SECONDS[:STEADY]]]"


def parse_window(text: str) -> WindowSpec:
    """``STEPS[:SETTLE[:SECONDS[:STEADY]]]``, e.g. ``20``, ``10:5``, ``50:3:5``, ``6:::12``."""
    parts = text.split(":")
    if not 1 <= len(parts) <= 4:
        raise ValueError(f"--profile-window expects {WINDOW_FORMAT}, got {text!r}")
    try:
        steps = int(parts[0])
        settle = int(parts[1]) if len(parts) > 1 and parts[1] else WindowSpec.settle
        seconds = float(parts[2]) if len(parts) > 2 and parts[2] else WindowSpec.seconds
        steady = int(parts[3]) if len(parts) > 3 and parts[3] else None
    except ValueError:
        raise ValueError(f"--profile-window expects {WINDOW_FORMAT}, got {text!r}") from None
    if steps < 1 or settle < 0 or not seconds > 0 or (steady is not None and steady < 0):
        raise ValueError(f"--profile-window needs STEPS >= 1, SETTLE >= 0, SECONDS > 0 and STEADY >= 0, got {text!r}")
    return WindowSpec(steps, settle, seconds, steady)


def _stop_in_child(window: weakref.ref) -> None:
    live = window()
    if live is not None:
        live.active = False
        live.state = "done"
        live._sampler = None  # its thread did not survive the fork
        live._profiler = None  # the parent's profiler object: never stopped or read from the child


class RuntimeWindow:
    """Counts steps, opens and closes the profiler at step boundaries, writes the ``runtime`` event."""

    def __init__(self, write: Write, spec: WindowSpec | None = None):
        self.write = write
        self.spec = spec or WindowSpec()
        self.state = "settling"  # settling -> measuring -> done (or -> armed -> settling, see _stop)
        self.active = True  # read by every wrapper; False makes them plain pass-throughs
        self._main = threading.main_thread().ident
        self._depth = 0
        self._anchor: int | None = None  # id of the wrapper whose calls are steps
        self._callables: dict[int, _Callable] = {}  # every wrapper entered, by id
        self._steps_seen = 0
        self._quiet = 0  # steps since the last compile
        self._compiled_since_step = False
        self._compile_open: dict[Any, float] = {}
        self._compiles: list[tuple[str | None, float, float, str | None]] = []  # (compile id, start, end, trigger)
        self._profiler: Any = None
        self._t0 = 0.0
        self._t0_wall = 0.0
        self._measured_steps = 0
        self._last_boundary = (0.0, 0.0)  # (wall, perf_counter) of the last step boundary inside the window
        # each measured step's own duration (between consecutive boundaries): the spread a comparison with eager
        # needs (one window's mean says nothing of how much its steps vary)
        self._step_us: list[int] = []
        # where each measured step ended (the next one's first compiled call was entered), in seconds from the window's
        # start: what ran just before a boundary prepared that call's inputs (profile_timeline: input preparation)
        self._boundaries: list[float] = []
        # the quiet steps just before the window opened (no compile or CUDA-graph recording in them), timed at step
        # boundaries without the profiler: how long a steady step takes unobserved, beside the window's profiled
        # steps (under CUDA graphs the profiler's share of a 2 ms step is large)
        self._settle_us: list[int] = []
        self._settle_mark: float | None = None
        self._steady_us: list[int] = []  # the steps after the window, timed without the profiler (runtime_steady)
        self._steady_t0 = 0.0
        self._steady_compiled = False  # a compile (or CUDA-graph recording) began in the steady step now running
        self._steady_skipped = 0  # steady steps not timed because they compiled
        self._sampler: Any = None  # stack_sampler.StackSampler while the window is open
        # Sample stacks only once a frame runs eagerly outside compiled code (failed to compile, past the recompile
        # limit): the sampler thread takes the GIL every 0.5 ms, a cost every other measured figure would carry.
        self._sample_stacks = False
        self._step_thread: int | None = None  # the thread that opened the window: the one the sampler watches
        self._held: dict[str, Any] | None = None  # a complete window over a step that may still move (see _stop)
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
        # torch brackets more than Dynamo's compiles with these callbacks: a compiled backward's lazy compile,
        # Triton autotuning, and each CUDA-graph recording (CallbackTrigger.CUDAGRAPH_RECORDING). Each keeps its
        # trigger, so the window's breakdown names a recording as one, never as "compile". Every kind delays the
        # settling: a step that records a CUDA graph is not a steady step either.
        key = (event.get("compile_id"), event.get("trigger"))
        if self.state == "steady":
            # the step that compiles (or records a CUDA graph: a new shape, the last batch of an epoch) is not timed;
            # the quiet steps after it are (they were cut short here before, leaving a nested loop no steady time)
            if event.get("type") == "compile_start":
                self._steady_compiled = True
            return
        if event.get("type") == "compile_start":
            self._compiled_since_step = True
            self._quiet = 0
            self._compile_open[key] = time.time()
        elif event.get("type") == "compile_end":
            start = self._compile_open.pop(key, None)
            if start is not None and self.state == "measuring":
                self._compiles.append((key[0], start, time.time(), key[1]))

    # -- the window ---------------------------------------------------------------------------------------------
    def _step_boundary(self, wrapper: Callable[..., Any]) -> None:
        try:
            if self.state == "measuring" and time.perf_counter() - self._t0 > self.spec.seconds + ABANDON_AFTER_S:
                self._late_boundary()
            entry = self._callables.get(id(wrapper))
            if entry is None:
                entry = self._callables[id(wrapper)] = _Callable.of(wrapper, order=len(self._callables))
            entry.calls += 1
            if self.state == "measuring":
                entry.in_window += 1
            if self._anchor is None:
                self._anchor = id(wrapper)
            elif id(wrapper) != self._anchor and entry.calls >= 2:
                step = self._callables[self._anchor]
                if step.calls < 2 or entry.order < step.order:
                    self._move_step(id(wrapper))  # it repeats, and the step did not yet or was entered later
            if id(wrapper) != self._anchor or self.state == "armed":
                return
            self._steps_seen = entry.calls
            if self.state == "steady":
                now = time.perf_counter()
                if self._settle_mark is not None:  # the step the window closed in carried its teardown: not timed
                    if self._steady_compiled:
                        self._steady_skipped += 1
                    else:
                        self._steady_us.append(int((now - self._settle_mark) * 1e6))
                self._settle_mark, self._steady_compiled = now, False
                if self._steady_skipped > self.spec.steady_steps:  # compiling more often than not: no steady speed
                    self._end_steady("compiles or CUDA-graph recordings kept coming after the window")
                    return
                # steps asked for by name (STEADY: `tdiag fix --verify`'s verdicts need them) are timed whatever they
                # take; the seconds bound the profiler's cost, and a steady step has none (a busy machine's slow
                # steps cut a re-run's steady phase short of a verdict)
                timed_out = self.spec.steady is None and now - self._steady_t0 >= self.spec.seconds
                if len(self._steady_us) >= self.spec.steady_steps or timed_out:
                    self._end_steady(None)
                return
            if self.state == "settling":
                now = time.perf_counter()
                if self._compiled_since_step:
                    self._compiled_since_step = False
                elif self._steps_seen > 1:
                    self._quiet += 1
                    if self._settle_mark is not None:  # a quiet step, timed without the profiler
                        self._settle_us.append(int((now - self._settle_mark) * 1e6))
                self._settle_mark = now
                if self._quiet >= self.spec.settle and self._steps_seen > 1:
                    self._start()
            elif self.state == "measuring":
                self._measured_steps += 1
                previous = self._last_boundary[1]
                self._last_boundary = (time.time(), time.perf_counter())
                self._step_us.append(int((self._last_boundary[1] - previous) * 1e6))
                self._boundaries.append(self._last_boundary[1] - self._t0)
                for c in self._callables.values():  # calls inside the window's complete steps
                    c.in_steps = c.in_window
                if self._measured_steps >= self.spec.steps or time.perf_counter() - self._t0 >= self.spec.seconds:
                    self._stop()
        except Exception as exc:  # measurement is extra: never let it break the program
            self._give_up(f"runtime measurement failed: {type(exc).__name__}: {exc}")

    def _late_boundary(self) -> None:
        """A boundary came long after the window should have closed: the step before it was not a step like the
        others (a compile, an outer loop's end). The window ends at the boundary before it, that step not counted;
        a window that measured no step yet is dropped when that step compiled (it settles again), and otherwise
        measures it (a slow step is still a step)."""
        now_wall = time.time()
        since = self._last_boundary[0]
        compiled = bool(self._compile_open) or any(end > since for _, _, end, _ in self._compiles)
        what = "a compile or CUDA-graph recording" if compiled else "eager work between calls (an outer loop's end?)"
        if self._measured_steps >= 1:
            self._stop(cut=f"the step after it ran {now_wall - since:.1f} s, {what}: not counted")
        elif compiled:
            self._drop_window()
            self._quiet, self._compiled_since_step = 0, True

    def _drop_window(self) -> None:
        """Stop the profiler and the sampler without writing anything: the window settles again."""
        profiler, self._profiler = self._profiler, None
        with _quiet_stderr():
            profiler.stop()
        self._stop_sampler()
        self.state = "settling"
        self._settle_us, self._settle_mark = [], None
        for entry in self._callables.values():
            entry.in_window = entry.in_steps = 0

    def _move_step(self, anchor: int) -> None:
        """Another callable is the step from now on; it settles afresh (a window already open measured the wrong
        boundaries and is dropped)."""
        self._anchor = anchor
        self._quiet = 0
        self._settle_us, self._settle_mark = [], None
        self._compiled_since_step = True  # its previous call's interval is unknown: count it as compiling
        if self.state == "armed":  # the held window measured a step that was not the program's: dropped
            self.state = "settling"
            self._held = None
        if self.state == "measuring":
            profiler, self._profiler = self._profiler, None
            with _quiet_stderr():
                profiler.stop()
            self._stop_sampler()
            self.state = "settling"
        for entry in self._callables.values():
            entry.in_window = entry.in_steps = 0

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
        self._step_thread = threading.get_ident()
        if self._sample_stacks:
            self._start_sampler(self._step_thread)
        self.state = "measuring"
        self._compiles = []
        self._measured_steps = 0
        self._step_us = []
        self._boundaries = []
        self._t0_wall = time.time()
        self._t0 = time.perf_counter()
        self._last_boundary = (self._t0_wall, self._t0)

    def _stop(self, partial: bool = False, cut: str | None = None) -> None:
        """Close the window at the last step boundary (now, or the last one before the program ended: ``partial``, or
        before a late one: ``cut`` says why)."""
        import torch

        if self._cuda:
            torch.cuda.synchronize()
        if not partial and cut is None:
            self._last_boundary = (time.time(), time.perf_counter())
        t1_wall, t1 = self._last_boundary
        window_s = t1 - self._t0
        profiler, self._profiler = self._profiler, None
        with _quiet_stderr():
            profiler.stop()
        samples = self._stop_sampler()
        from tdiag.tracer.profile_timeline import timeline

        event = timeline(profiler, self._t0_wall, self._t0_wall + window_s, self._compiles, cuda=self._cuda,
                         step_starts=[self._t0_wall + s for s in self._boundaries])
        step = self._callables[self._anchor]
        event.update(
            type="runtime",
            status="measured",
            steps=self._measured_steps,
            planned_steps=self.spec.steps,
            partial=partial,
            settle=self.spec.settle,
            step_function=step.name,
            step_path=step.path,
            step_line=step.line,
            step_reason=self._step_reason(),
            callables=[c.public() for c in sorted(self._callables.values(), key=lambda c: -c.calls)][:20],
            window_s=window_s,
            window_us=int(window_s * 1e6),
            step_us=list(self._step_us),
            unprofiled_step_us=self._settle_us[-self.spec.settle:] if self.spec.settle else [],
            device="cuda" if self._cuda else "cpu",
            samples=samples,
        )
        if cut:
            event["cut"] = cut
        if partial or step.order == 0:
            self.write(event)
            if partial:
                self._finish()
            else:  # the same steps again, unobserved: the step time without the profiler's own cost
                self.state = "steady"
                self._steady_us, self._steady_skipped, self._steady_compiled = [], 0, False
                self._steady_t0, self._settle_mark = time.perf_counter(), None
            return
        # Measured over a callable entered after another that has not repeated (yet): a setup function, or the
        # first call of an outer loop whose inner loop is this callable. Held until the program ends; if the
        # earlier one repeats, the step moves to it and a new window replaces this one.
        self._held = event
        self.state = "armed"

    def _end_steady(self, why: str | None) -> None:
        """Write the steps timed after the window (``runtime_steady``) and let every wrapper go quiet."""
        steps, self._steady_us = self._steady_us, []
        self._finish()
        event = {"type": "runtime_steady", "steps": len(steps), "step_us": steps}
        if self._steady_skipped:  # steps that compiled or recorded a CUDA graph: not timed
            event["skipped"] = self._steady_skipped
        if why:
            event["ended"] = why
        self.write(event)

    def sample_eager_frames(self) -> None:
        """A frame now runs eagerly outside compiled code: its time is found by sampling stacks in the window (from
        now on, if the window is already open: the samples' shares then cover the rest of the window)."""
        self._sample_stacks = True
        if self.state == "measuring" and self._sampler is None and self._step_thread is not None:
            self._start_sampler(self._step_thread)

    def _start_sampler(self, thread_id: int) -> None:
        from tdiag.tracer.stack_sampler import StackSampler

        self._sampler = StackSampler(thread_id)
        self._sampler.start()

    def _stop_sampler(self) -> dict[str, Any] | None:
        sampler, self._sampler = self._sampler, None
        return sampler.stop() if sampler is not None else None

    def _step_reason(self) -> str:
        step = self._callables[self._anchor]
        others = sorted((c for c in self._callables.values() if c is not step), key=lambda c: -c.calls)
        if not others:
            return f"the only compiled callable the program entered ({step.calls} calls)"
        inside = ", ".join(f"{c.name} {c.in_steps}" for c in others if c.in_steps)
        earlier = ", ".join(c.name for c in others if c.order < step.order)
        why = (
            f"entered {step.calls} times: the first compiled callable the program entered, and it repeats"
            if not earlier
            else f"entered {step.calls} times: the first-entered compiled callable that repeats ({earlier}: "
            "entered earlier, not again)"
        )
        return why + (f"; calls of others inside the window: {inside}" if inside else "")

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
        self._stop_sampler()
        self.state = "done"
        self.active = False
        if self._undo is not None:
            self._undo()

    def close(self) -> None:
        """At the end of the capture: a window cut short keeps its measured steps (labelled partial); a window that
        measured none is reported as not measured, with what would measure it."""
        if self.state == "done":
            return
        if self.state == "steady":
            self._end_steady("the program ended")
            return
        if self.state == "measuring" and self._measured_steps >= 1:
            try:
                self._stop(partial=True)
            except Exception as exc:
                self._give_up(f"runtime measurement failed: {type(exc).__name__}: {exc}")
            return
        if self._held is not None:  # the complete window over the step before it moved, or never moved
            if self._profiler is not None:
                with contextlib.suppress(Exception), _quiet_stderr():
                    self._profiler.stop()
                self._profiler = None
            self._finish()
            self.write(self._held)
            return
        if self._steps_seen == 0:
            reason = "no compiled function was called"
        elif self.state == "measuring":
            reason = (
                f"program ended after {self._steps_seen} steps, before the first measured step completed; "
                "run at least one more step to measure one"
            )
        else:
            reason = (
                f"program ended after {self._steps_seen} steps, before compilation settled "
                f"({self.spec.settle} steps without a compile are needed first); "
                + _what_would_measure(self._steps_seen, self.spec)
            )
        if self._profiler is not None:
            self._abandon(reason)
        else:
            self._finish()
            self.write({"type": "runtime", "status": "not_measured", "reason": reason, "steps_seen": self._steps_seen})


@lean_dataclass
class _Callable:
    """One compiled callable the program entered: its outermost calls, in all and inside the window."""

    name: str
    path: str | None
    line: int | None
    order: int = 0  # first entered: 0
    calls: int = 0
    in_window: int = 0  # outermost calls since the window opened
    in_steps: int = 0  # of those, the ones before the window's last step boundary

    @classmethod
    def of(cls, wrapper: Callable[..., Any], order: int) -> _Callable:
        user = getattr(wrapper, "_torchdynamo_orig_callable", wrapper)
        for _ in range(8):  # torch's wrap_inline and functools.wraps layers, down to what the user compiled
            inner = getattr(user, "__wrapped__", None)
            if inner is None:
                break
            user = inner
        owner = getattr(user, "__self__", None)
        if _is_module(user) or (owner is not None and _is_module(owner) and getattr(user, "__name__", "") in _MODULE_CALLS):
            module = user if _is_module(user) else owner
            # torch.compile(model): the model's forward, not nn.Module._wrapped_call_impl or wrap_inline's inner
            name, user = f"{type(module).__qualname__}.forward", getattr(type(module), "forward", user)
            for _ in range(8):  # a library's decorators on forward (transformers' can_return_tuple, ...)
                user = getattr(user, "__wrapped__", None) or user
                if not hasattr(user, "__wrapped__"):
                    break
        else:
            name = getattr(user, "__qualname__", None) or getattr(wrapper, "__qualname__", "") or "?"
        code = getattr(getattr(user, "__func__", user), "__code__", None)
        return cls(name, code.co_filename if code else None, code.co_firstlineno if code else None, order)

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "line": self.line, "calls": self.calls, "in_window": self.in_steps}


_MODULE_CALLS = ("__call__", "_wrapped_call_impl", "_call_impl")


def _is_module(obj: Any) -> bool:
    return any(c.__name__ == "Module" and c.__module__.startswith("torch.nn") for c in type(obj).__mro__)


def _what_would_measure(steps_seen: int, spec: WindowSpec) -> str:
    """The window needs 1 compiling step, ``settle`` quiet ones, then one measured step."""
    needed = spec.settle + 3
    if steps_seen >= 3:
        return f"--profile-window {spec.steps}:0 would measure from step 2, or run {needed} steps or more"
    return f"run {needed} steps or more to measure"


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
