"""Switch on the Inductor detail the analysis needs, for the length of a capture session.

Each hook is installed separately and guarded: a torch without one is a capture problem in the record (capture
incomplete), never an exception.
Default mode keeps the compile caches working (provenance tracking, a watcher on the output code, Triton launch
metadata read at the end). Deep mode adds hooks that bypass the caches (exact IR classes per fused group) or that
are private enough to keep opt-in (per-kernel C++ compile time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tdiag.compiler.failures import report

Undo = Callable[[], None]


def enable(session: Any, deep: bool = False, installed: Callable[[], None] | None = None) -> Undo | None:
    """Install the compiler-side capture; return one undo for all of it.

    The hooks on Inductor itself wait for the program's import of ``torch._inductor.compile_fx`` (what every Inductor
    compile runs first): a program compiling with ``eager``/``aot_eager`` never pays for their modules or their setup
    (issue 26: the cost of a short run). Where that import cannot be followed they are installed at once.
    ``installed()`` runs after each group is in place (the session hides the modules it loaded from Dynamo)."""
    undos: list[Undo] = []
    _install_each(session, _dynamo_side(), undos)

    def inductor_imported() -> None:
        check = getattr(session, "report_missing", None)  # the touchpoints this torch lacks: capture problems
        if callable(check):
            check("inductor")
            if deep:
                check("deep")
        _install_each(session, _inductor_side(deep), undos)
        if installed is not None:
            installed()

    from tdiag.tracer import import_watch

    cancel = import_watch.after_import(INDUCTOR_ENTRY, inductor_imported, inductor_imported)

    def undo_all() -> None:
        cancel()
        while undos:
            try:
                undos.pop()()
            except Exception as exc:
                report(session, "undoing an Inductor hook", exc)

    return undo_all


# Imported by Inductor's every compile before it lowers a graph; eager and aot_eager never import it.
INDUCTOR_ENTRY = "torch._inductor.compile_fx"


def _install_each(session: Any, installers: list[Callable[[Any], Undo | None]], undos: list[Undo]) -> None:
    for install in installers:
        try:
            undo = install(session)
        except Exception as exc:  # one missing private hook must not cost the others
            report(session, f"Inductor hook {install.__module__}.{install.__name__}", exc)
            continue
        if undo is not None:
            undos.append(undo)


def _dynamo_side() -> list[Callable[[Any], Undo | None]]:
    """What is seen from Dynamo's side or by logger name, before any Inductor import: CUDA-graph and DDP messages."""
    from tdiag.compiler import cudagraph_watch

    return [cudagraph_watch.install]


def _inductor_side(deep: bool) -> list[Callable[[Any], Undo | None]]:
    from tdiag.compiler import aot_node_stacks, launch_metadata, lowering_watch, module_stacks, provenance

    installers = [provenance.install, lowering_watch.install, launch_metadata.install, module_stacks.install,
                  aot_node_stacks.install]
    if deep:
        from tdiag.compiler import deep_hooks

        installers += [deep_hooks.install_fusion_pass, deep_hooks.install_cpp_compile_timer]
    return installers
