"""Inductor provenance tracking: the kernel -> FX node -> user line artifacts and the debug handles in output code.

Provenance level 1 also makes AOTAutograd's ``make_fx`` capture and symbolise a Python stack for every node it traces.
That pays off only where Inductor lowers the graph, so it is switched off while Dynamo hands a graph to one of
torch's debugging backends (``eager``, ``aot_eager``, ...), which never lower: on a small aot_eager program that
was ~3,500 traceback lines formatted for nothing, growing with the size of every graph.
"""

from __future__ import annotations

from typing import Any

from tdiag.compiler.failures import missing

PROVENANCE_LEVEL = 1
DEBUG_BACKENDS = "torch._dynamo.backends.debugging"


def install(session: Any):
    import torch._inductor.config as inductor_config

    trace_config = getattr(inductor_config, "trace", None)
    if trace_config is None or not hasattr(trace_config, "provenance_tracking_level"):
        missing(session, "torch._inductor.config.trace.provenance_tracking_level",
                "kernels are attributed from their names only, not mapped to source lines")
        return None
    previous = trace_config.provenance_tracking_level
    if not previous:
        trace_config.provenance_tracking_level = PROVENANCE_LEVEL
    unwrap = _off_for_debugging_backends(trace_config) if not previous else None
    # The level is part of the FX graph (and AOTAutograd) cache key: keyed as the program left it, a run under tdiag
    # hits where a plain run hits, and the other way round (issue 42).
    unkey = _keyed_as_program(previous) if not previous else None

    def undo() -> None:
        if unwrap is not None:
            unwrap()
        if unkey is not None:
            unkey()
        trace_config.provenance_tracking_level = previous

    return undo


def _keyed_as_program(level: int):
    """Compute the cache key's ``provenance_tracking_level`` as the program's own ``level``, not tdiag's.

    What a hit then loads was compiled either way: under tdiag its output code carries the debug handles (comments
    a plain run never reads); under a plain run it has none, and the analysis says so for that graph (kernels listed
    from their call sites, analyzer/kernels.py). Nothing else of tdiag is in the key (tests/differential checks it)."""
    try:
        from torch._inductor.codecache import FxGraphHashDetails
    except ImportError:
        return None
    original = FxGraphHashDetails.__init__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if getattr(self, "provenance_tracking_level", level) == PROVENANCE_LEVEL:
            self.provenance_tracking_level = level

    FxGraphHashDetails.__init__ = __init__

    def unwrap() -> None:
        if FxGraphHashDetails.__init__ is __init__:
            FxGraphHashDetails.__init__ = original

    return unwrap


def _off_for_debugging_backends(trace_config: Any):
    try:
        from torch._dynamo.output_graph import OutputGraph
    except ImportError:
        return None
    original = getattr(OutputGraph, "call_user_compiler", None)
    if original is None:
        return None

    def call_user_compiler(self, *args: Any, **kwargs: Any):
        level = trace_config.provenance_tracking_level
        if not level or not never_lowers(getattr(self, "compiler_fn", None)):
            return original(self, *args, **kwargs)
        trace_config.provenance_tracking_level = 0
        try:
            return original(self, *args, **kwargs)
        finally:
            trace_config.provenance_tracking_level = level

    OutputGraph.call_user_compiler = call_user_compiler

    def unwrap() -> None:
        if OutputGraph.call_user_compiler is call_user_compiler:
            OutputGraph.call_user_compiler = original

    return unwrap


def never_lowers(backend: Any) -> bool:
    """True for a backend that is, under torch.compile's and the debug wrappers, one of torch's debugging backends.
    Anything else (Inductor, a custom backend that may call Inductor) keeps provenance on."""
    seen: set[int] = set()
    while backend is not None and id(backend) not in seen:
        seen.add(id(backend))
        if getattr(backend, "__module__", None) == DEBUG_BACKENDS:
            return True
        backend = (getattr(backend, "_torchdynamo_orig_backend", None) or getattr(backend, "compiler_fn", None)
                   or getattr(backend, "__wrapped__", None) or getattr(backend, "func", None))  # func: a partial
    return False
