"""Keep the whole capture out of Dynamo's sight, not only the runtime window.

torch calls back into tdiag while a compiled frame's eager part runs (a graph break's eager code, a lazily compiled
backward): the structured-trace logger's ``handlers``/``handle`` and tdiag's sinks behind it, the compile-progress
callbacks, the record writer. Dynamo's frame callback is active there, so each of those Python frames (and the
``json``/``logging`` frames they call) was handed to Dynamo, counted in torch's ``frames`` counters and traced as
if it were the user's code: under ``tdiag run`` a compiled training step counted 109 frames where python counted 57.

Every code object of the capture modules is marked for Dynamo to skip (``dynamo_skip``): pure sinks together with
everything they call (``SKIP, SKIP``); the wrappers that pass a call on to torch or the program (``PASS_THROUGH``)
only themselves (``SKIP, DEFAULT``, what ``torch._dynamo.eval_frame.skip_code`` does), so the frames torch would run
without tdiag are seen by Dynamo exactly as without it. ``runtime_window`` marks its own code; ``runner`` runs the
program and is never inside a compiled frame. The differential harness (docs/differential.md) checks the result.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from tdiag.tracer import dynamo_skip

MODULE_PREFIXES = ("tdiag.tracer.", "tdiag.compiler.")
MODULES = ("tdiag.record",)
NOT_HIDDEN = ("tdiag.tracer.runtime_window", "tdiag.tracer.runner")
# (module, function name): wrappers that call on into torch, the program or the program's logging handlers. A new
# wrapper of a torch function in the capture belongs here: unlisted, the frames torch runs under it would be hidden.
PASS_THROUGH = {
    ("tdiag.tracer.break_hook", "log_graph_break"),
    ("tdiag.compiler.provenance", "call_user_compiler"),
    ("tdiag.compiler.module_stacks", "call_user_compiler"),
    ("tdiag.compiler.deep_hooks", "post_fusion"),
    ("tdiag.compiler.deep_hooks", "timed_cpp_pybinding"),
    ("tdiag.compiler.deep_hooks", "timed_result"),
    ("tdiag.compiler.cudagraph_watch", "record_function"),
    ("tdiag.tracer.trace_logger", "handle"),
    ("tdiag.tracer.trace_logger", "_tdiag_enabled"),
    ("tdiag.tracer.trace_logger", "_tdiag_user_enabled"),
    ("tdiag.tracer.import_watch", "find_spec"),
    ("tdiag.tracer.import_watch", "exec_then_notify"),
    ("tdiag.compiler.aot_node_stacks", "_compile_fx_inner"),
    ("tdiag.compiler.aot_node_stacks", "post_compile"),
    ("tdiag.compiler.aot_node_stacks", "attach"),
    ("tdiag.tracer.crash", "_hook"),
    ("tdiag.tracer.hook_watch", "register"),
    ("tdiag.tracer.torch_warnings", "_showwarnmsg"),
    ("tdiag.compiler.backend", "tdiag_backend"),
    ("tdiag.compiler.backend", "config_patches"),
}


def hide_capture(done: set[str] | None = None) -> int:
    """Mark the loaded capture modules' code; the number of code objects marked. ``done``: the modules a session
    already marked (the Inductor-side ones load later, when Inductor does), updated. Raises
    ``dynamo_skip.DynamoSkipUnavailable`` where this torch cannot mark code (nothing is marked then)."""
    from torch._dynamo.eval_frame import skip_code  # SKIP, DEFAULT; present wherever dynamo_skip works

    dynamo_skip.hide()  # fails before anything is marked on a torch without the API
    marked = 0
    for name, module in sorted(sys.modules.items()):
        if module is None or name in NOT_HIDDEN or not (name.startswith(MODULE_PREFIXES) or name in MODULES):
            continue
        if done is not None:
            if name in done:
                continue
            done.add(name)
        for code in module_codes(module):
            if (name, code.co_name) in PASS_THROUGH:
                skip_code(code)
            else:
                dynamo_skip.hide(code)
            marked += 1
    return marked


def module_codes(module: types.ModuleType) -> list[types.CodeType]:
    """Every code object defined in ``module``: functions, methods, properties, and the closures and lambdas in them."""
    found: dict[int, types.CodeType] = {}

    def add(code: types.CodeType) -> None:
        if id(code) in found:
            return
        found[id(code)] = code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                add(const)

    def visit(obj: Any, depth: int = 0) -> None:
        if getattr(obj, "__module__", None) != module.__name__ or depth > 3:
            return
        if isinstance(obj, type):
            for member in vars(obj).values():
                for fn in _functions(member):
                    visit(fn, depth + 1)
            return
        code = getattr(obj, "__code__", None)
        if isinstance(code, types.CodeType):
            add(code)

    for obj in list(vars(module).values()):
        for fn in _functions(obj):
            visit(fn)
    return list(found.values())


def _functions(member: Any) -> list[Any]:
    if isinstance(member, property):
        return [f for f in (member.fget, member.fset, member.fdel) if f is not None]
    if isinstance(member, (staticmethod, classmethod)):
        return [member.__func__]
    return [member]
