"""Capture what torch decides about CUDA graphs (``mode="reduce-overhead"``) and DDPOptimizer buckets.

torch states these decisions only in ordinary log records, never in the structured trace:

- every skip goes through ``torch._inductor.cudagraph_utils.log_cudagraph_skip_and_bump_counter``, a WARNING on the
  ``cudagraphs`` artifact logger of that module ("skipping cudagraphs due to ..."), at compile time (CPU device,
  incompatible op, dynamic graph) and at run time (mutated inputs, re-recording limit);
- cudagraph trees log each recording for a new symint key at INFO on the module's ``cudagraphs`` artifact logger,
  and every recording runs inside a ``CUDAGRAPH_RECORDING`` compile bracket (tracer/progress.py). The input sizes of
  a recording come from a wrapper on ``CUDAGraphTreeManager.record_function``, written in the shape of torch's own
  DEBUG line for it: switching that logger to DEBUG would also make torch format a re-recording reason on calls
  that replay a later child of a graph tree node, a cost on the replay path;
- DDPOptimizer logs its bucket cap and bucket count at INFO.

A filter on each of these loggers copies the record into the tdiag record and then lets through only what the
user's own logging configuration would have shown, so the program's output does not change. All of these records
come at compile or recording time: nothing here runs on a replay of a recorded graph.
"""

from __future__ import annotations

import functools
import logging
import sys
from typing import Any

from tdiag.compiler.failures import missing, report

from tdiag.lazy_regex import lazy_regex

CUDAGRAPH_LOGGERS = (
    "torch._inductor.cudagraph_utils.__cudagraphs",  # skip reasons, dynamic-shape warning
    "torch._inductor.cudagraph_trees.__cudagraphs",  # recordings, re-recordings, symint keys
)
DDP_LOGGER = "torch._dynamo.backends.distributed"
RECORDING_LOGGER = "tdiag.cudagraph_recording"  # the wrapper's events (torch's own logger name would mislead)
DDP_MESSAGE = "DDPOptimizer used bucket cap"
_BRACKETED_ID = lazy_regex(r"^\[(!?\d+(?:/\d+)+)\]")
RECORDING_LINE = lazy_regex(r"^\[[^\]]*\] (?:Recording function=|Re-recording function=|Running (?:warmup|eager) function=)")


class DecisionFilter(logging.Filter):
    """Records what the logger emits; passes on only records at or above the user's own level."""

    def __init__(self, session: Any, logger: logging.Logger, user_level: int, wanted: str | None = None):
        super().__init__()
        self.session = session
        self.logger = logger
        self.user_level = user_level
        self.forced_level = logger.level  # what _watch set; a different level later is the user's own setting
        self.wanted = wanted

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
            # torch's own per-recording DEBUG lines (a user's TORCH_LOGS) would count recordings twice
            if (self.wanted is None or self.wanted in text) and not RECORDING_LINE.match(text):
                self.session.write(
                    {
                        "type": "log",
                        "logger": self.logger.name,
                        "level": record.levelname,
                        "msg": text,
                        "compile_id": _compile_id(text),
                    }
                )
        except Exception as exc:  # diagnostics must never break the program they watch
            report(self.session, "CUDA-graph log watcher", exc)
        return record.levelno >= self.user_level or self.logger.level != self.forced_level


def _compile_id(text: str) -> str | None:
    """The compile id the message is about: torch's own ``[0/0]`` prefix, else the compile in progress (a skip
    decided while compiling), else the graph the cudagraph tree manager is running (a skip decided at run time)."""
    match = _BRACKETED_ID.match(text)
    if match:
        return match.group(1)
    try:
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        if cid is not None:
            return str(cid)
    except Exception:  # not a loss: the frame walk below is the second way to the same compile id
        pass
    frame = sys._getframe(2)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if type(owner).__name__ == "CUDAGraphTreeManager" and getattr(owner, "compile_id", None) is not None:
            return str(owner.compile_id)
        frame = frame.f_back
    return None


def _watch(session: Any, name: str, level: int, wanted: str | None = None):
    logger = logging.getLogger(name)
    previous = logger.level
    user_level = logger.getEffectiveLevel()
    if user_level > level:
        logger.setLevel(level)
    watcher = DecisionFilter(session, logger, user_level, wanted)
    logger.addFilter(watcher)

    def undo() -> None:
        logger.removeFilter(watcher)
        logger.setLevel(previous)

    return undo


def install(session: Any):
    # The loggers are watched by name, without importing Inductor: torch's artifact-logger setup at import keeps the level
    # set here (the "cudagraphs" artifact is on by default), and a Dynamo-only program never pays for ~800 modules.
    undos = [_watch(session, name, logging.INFO) for name in CUDAGRAPH_LOGGERS]
    undos.append(_watch(session, DDP_LOGGER, logging.INFO, DDP_MESSAGE))
    undos.append(_wrap_when_loaded(session))

    def undo() -> None:
        _record_pool_memory(session)
        for step in reversed(undos):
            step()

    return undo


CUDAGRAPH_TREES = "torch._inductor.cudagraph_trees"


def _wrap_when_loaded(session: Any):
    """Wrap ``record_function`` now if Inductor's cudagraph_trees is loaded, else at the end of the first compile that
    loaded it (compile_fx imports it; recordings happen on a compiled graph's first calls, after its compile ended).
    Importing it here would cost every Dynamo-only program ~200 modules (~0.2 s) it never uses."""
    state: dict[str, Any] = {"undo": None}

    def wrap(*_: Any) -> None:
        if state["undo"] is not None or CUDAGRAPH_TREES not in sys.modules:
            return
        undo = _wrap_record_function(session)
        if undo is None:
            missing(session, "torch._inductor.cudagraph_trees.CUDAGraphTreeManager.record_function",
                    "CUDA graph recordings without input sizes")
        state["undo"] = undo or (lambda: None)

    wrap()
    unregister = None
    if state["undo"] is None:
        from tdiag.tracer import compile_callbacks

        try:
            unregister = compile_callbacks.register(end=wrap)
        except Exception:  # no compile callbacks: wrap what is there at the session's end is too late; say so
            missing(session, "torch._dynamo.callback.callback_handler", "CUDA graph recordings without input sizes")

    def undo() -> None:
        if unregister is not None:
            unregister()
        if state["undo"] is not None:
            state["undo"]()

    return undo


def _wrap_record_function(session: Any):
    """Write each recording's compile id, mode and input sizes, in the form of torch's DEBUG line for it."""
    from torch._inductor import cudagraph_trees

    manager = getattr(cudagraph_trees, "CUDAGraphTreeManager", None)
    original = getattr(manager, "record_function", None)
    describe = getattr(cudagraph_trees, "format_inputs_log", None)
    if original is None or describe is None:
        return None

    @functools.wraps(original)
    def record_function(self, new_inputs, function_id, *args, **kwargs):
        try:
            mode = getattr(self.id_to_mode.get(function_id), "name", "?")
            session.write(
                {
                    "type": "log",
                    "logger": RECORDING_LOGGER,
                    "level": "DEBUG",
                    "msg": f"[{self.compile_id}] Recording function={function_id.id}, mode={mode}, "
                    f"inputs: {describe(new_inputs)}",
                    "compile_id": str(self.compile_id) if self.compile_id is not None else None,
                }
            )
        except Exception as exc:
            report(session, "CUDA-graph recording hook", exc)
        return original(self, new_inputs, function_id, *args, **kwargs)

    manager.record_function = record_function

    def undo() -> None:
        if manager.record_function is record_function:
            manager.record_function = original

    return undo


def _record_pool_memory(session: Any) -> None:
    """Bytes the CUDA graph memory pools hold at the end of the capture (segments of private pools)."""
    try:
        import torch

        if not torch.cuda.is_available() or not torch.cuda.is_initialized():
            return
        pools: dict[str, int] = {}
        for segment in torch.cuda.memory_snapshot():
            pool = segment.get("segment_pool_id")
            if pool is None or tuple(pool) == (0, 0):  # (0, 0): the default caching-allocator pool
                continue
            key = "/".join(str(p) for p in pool)
            pools[key] = pools.get(key, 0) + int(segment.get("total_size") or 0)
        if pools:
            session.write({"type": "cudagraph_pool", "pools": pools, "bytes": sum(pools.values())})
    except Exception as exc:
        report(session, "CUDA-graph pool memory", exc)
