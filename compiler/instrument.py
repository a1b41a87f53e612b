"""Switch on the Inductor detail the analysis needs, for the length of a capture session.

Each hook is installed separately and guarded: a torch without one yields a note in the record, never an exception.
Default mode keeps the compile caches working (provenance tracking, a watcher on the output code, Triton launch
metadata read at the end). Deep mode adds hooks that bypass the caches (exact IR classes per fused group) or that
are private enough to keep opt-in (per-kernel C++ compile time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tdiag.compiler.failures import report

Undo = Callable[[], None]


def enable(session: Any, deep: bool = False) -> Undo | None:
    """Install the compiler-side capture; return one undo for all of it."""
    undos: list[Undo] = []
    for install in _installers(deep):
        try:
            undo = install(session)
        except Exception as exc:  # one missing private hook must not cost the others
            session.note(f"Inductor hook {install.__module__}.{install.__name__} unavailable: {type(exc).__name__}: {exc}")
            continue
        if undo is not None:
            undos.append(undo)

    def undo_all() -> None:
        while undos:
            try:
                undos.pop()()
            except Exception as exc:
                report(session, "undoing an Inductor hook", exc)

    return undo_all


def _installers(deep: bool) -> list[Callable[[Any], Undo | None]]:
    from tdiag.compiler import (
        aot_node_stacks,
        cudagraph_watch,
        launch_metadata,
        lowering_watch,
        module_stacks,
        provenance,
    )

    installers = [provenance.install, lowering_watch.install, launch_metadata.install, cudagraph_watch.install,
                  module_stacks.install, aot_node_stacks.install]
    if deep:
        from tdiag.compiler import deep_hooks

        installers += [deep_hooks.install_fusion_pass, deep_hooks.install_cpp_compile_timer]
    return installers
