"""Every private torch touchpoint of the capture, in one list: what it is, where tdiag uses it, the torch releases it
was tested on, and what tdiag does when a release lacks it (each use is feature-detected; a missing touchpoint
costs detail and says so in the record, never the run).

``tests/unit/test_torch_compat.py`` resolves each entry against the installed torch, so an upgrade that removes or
moves one fails there by name, and checks that the list is complete (every ``torch._*`` module the capture imports
is named here). ``scripts/torch-matrix`` runs the oracle tests on each release of ``TESTED``. Public API
(``torch.compile``, ``torch.profiler``) and torch's structured-trace event names (``tdiag/torch_events.py``) are
not listed here. Standard library only: reading this list imports no torch.

A touchpoint this torch lacks is a capture problem ("capture incomplete", with the fallback as what was lost; lint and
diff exit 2): ``missing(stage)`` checks each at the stage of the capture that first needs it (``STAGES``), so a
program that never compiles with Inductor never imports Inductor to be checked.
"""

from __future__ import annotations

import importlib
import logging
import sys

from tdiag.lean_dataclass import lean_dataclass
from tdiag.torch_releases import TESTED  # docs/torch-versions.md; 2.11 also on CUDA (GPU machine)


@lean_dataclass(frozen=True)
class Touchpoint:
    """One private piece of torch tdiag reads or wraps, and what the capture loses where it is missing."""

    name: str  # dotted path: module, then attributes (a logger: the logger's name)
    used_in: str  # the tdiag module that touches it
    what: str  # what tdiag reads or wraps there
    fallback: str  # what tdiag does where it is missing
    kind: str = "attribute"  # "attribute" (importable) or "logger" (a logging name torch logs under)
    tested: tuple[str, ...] = TESTED
    stage: str = ""  # see STAGES; "" is "inductor" for torch._inductor names, else "dynamo"


STAGES = {
    "start": "checked when the capture starts, before tdiag attaches (torch is imported)",
    "dynamo": "checked once torch._dynamo is imported (the Dynamo hooks are installed then)",
    "inductor": "checked once Inductor's compile entry is imported (the Inductor hooks are installed then)",
    "deep": "checked with the Inductor stage under --deep only",
    "loaded": "checked at the end of the capture, only where torch imported its module (CUDA graphs)",
    "none": "not checked: its absence loses nothing (its fallback says why)",
}


def stage_of(point: Touchpoint) -> str:
    return point.stage or ("inductor" if point.name.startswith("torch._inductor") else "dynamo")


def missing(stage: str) -> list[Touchpoint]:
    """The touchpoints of ``stage`` this torch lacks. Importing a touchpoint's module is allowed at its stage (the
    hooks import it then anyway), except at the ``loaded`` stage, which never imports."""
    return [p for p in TOUCHPOINTS if stage_of(p) == stage and not present(p, may_import=stage != "loaded")]


def present(point: Touchpoint, may_import: bool = True) -> bool:
    """Does this torch have ``point``? At the ``loaded`` stage a module torch never imported counts as present
    (nothing of it was used)."""
    if point.kind == "logger":  # torch's loggers are named after their modules (the trace logger is torch's own)
        if point.name not in sys.modules and point.stage != "start":
            if not may_import:
                return True
            try:
                importlib.import_module(point.name)
            except Exception:
                return False
        return point.name in logging.Logger.manager.loggerDict
    parts = point.name.split(".")
    for cut in range(len(parts), 0, -1):
        if not may_import and cut <= 2:  # only torch's top package loaded: torch never imported the module here
            return True
        module_name = ".".join(parts[:cut])
        module = sys.modules.get(module_name)
        if module is None and may_import:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            except Exception:  # a module that fails to import is as missing as one that is not there
                return False
        if module is None:
            continue
        obj = module
        for attr in parts[cut:]:
            try:
                obj = getattr(obj, attr)
            except Exception:
                return False
        return True
    return False


TOUCHPOINTS: tuple[Touchpoint, ...] = (
    Touchpoint("torch._dynamo.exc.Unsupported", "tracer/crash.py",
               "real_stack (the user frames Dynamo was tracing), gb_type and compile_id read off the exception a "
               "program ended with (getattr; nothing imported)",
               "the crash is placed on the compiled call, and torch's message still names the cause"),
    Touchpoint("torch._dynamo.exc.BackendCompilerFailed", "tracer/crash.py",
               "inner_exception and backend_name read off a backend failure the program ended with (getattr)",
               "the backend's own error is read from torch's message instead"),
    Touchpoint("torch._dynamo.symbolic_convert.InstructionTranslatorBase", "tracer/break_hook.py",
               "log_graph_break (a method from 2.11, a module function in 2.9) wrapped for the break's bytecode offset",
               "breaks come from the trace only, without bytecode offsets"),
    Touchpoint("torch._guards.CompileContext.current_compile_id", "tracer/break_hook.py",
               "the compile id of the frame a break hook fires in",
               "the break site is paired with the trace's break by order alone"),
    Touchpoint("torch._guards.TracingContext.extract_stack", "tracer/torch_warnings.py",
               "the user frames Dynamo is tracing when torch warns during a compile (sys.modules only; nothing imported)",
               "a warning issued while compiling is placed at the nearest user frame of the interpreter's stack (the "
               "line that called the compiled function)"),
    Touchpoint("torch._dynamo.utils.counters", "tracer/hook_watch.py",
               "frames torch compiled so far, read when the program registers a module hook (after one: recorded)",
               "module hooks registered after compiling are not recorded: EGR001 cannot name them as a cause"),
    Touchpoint("torch.nn.Module.register_forward_hook", "tracer/hook_watch.py",
               "wrapped (the original always called) to record hooks registered after torch compiled code",
               "module hooks registered after compiling are not recorded: EGR001 cannot name them as a cause"),
    Touchpoint("torch._dynamo.resume_execution.ContinueExecutionCache", "tracer/bytecode.py",
               "maps resume functions' bytecode back to the user's code object",
               "offsets after a resume stay in the resume function's numbering"),
    Touchpoint("torch._dynamo.callback.callback_handler", "tracer/compile_callbacks.py",
               "compile start/end brackets: live progress, lazy-backward compile time",
               "no live progress"),
    Touchpoint("torch._dynamo.eval_frame", "tracer/progress.py",
               "the file its wrappers run compiled calls from: the frame beyond them is the user's call (caller_stack)",
               "no caller stack on compile starts: call sites come from torch's dynamo_start stack alone"),
    Touchpoint("torch._dynamo.eval_frame._TorchDynamoContext", "tracer/runtime_window.py",
               "__call__ wrapped to count the outermost calls of each compiled callable (the step: the first-entered "
               "one that repeats)",
               "no runtime window: the runtime event says not_measured with the reason"),
    Touchpoint("torch._dynamo.eval_frame.set_code_exec_strategy", "tracer/dynamo_skip.py",
               "FrameExecStrategy(SKIP, SKIP) on the window's wrapper and methods: Dynamo never sees tdiag's frames "
               "(docs/runtime-window.md); torch._C._dynamo.eval_frame's own names as a second place to look",
               "no runtime window (measuring would change what Dynamo compiles)"),
    Touchpoint("torch._dynamo.eval_frame.FrameExecStrategy", "tracer/dynamo_skip.py",
               "the strategy object set_code_exec_strategy takes",
               "no runtime window (measuring would change what Dynamo compiles)"),
    Touchpoint("torch._dynamo.eval_frame.FrameAction", "tracer/dynamo_skip.py",
               "SKIP, for the frame and its callees", "no runtime window (measuring would change what Dynamo compiles)"),
    Touchpoint("torch._C._dynamo.eval_frame.set_code_exec_strategy", "tracer/dynamo_skip.py",
               "the C function itself, should the Python re-export move",
               "nothing is lost while torch._dynamo.eval_frame re-exports it", stage="none"),
    Touchpoint("torch._dynamo.eval_frame.skip_code", "tracer/hidden_capture.py",
               "FrameExecStrategy(SKIP, DEFAULT) for the capture's wrappers that pass a call on to torch; the rest of "
               "the capture's code SKIP, SKIP through dynamo_skip",
               "nothing of the capture is hidden from Dynamo: torch's frame counters include tdiag's callbacks"),
    Touchpoint("torch._logging.structured.INTERN_TABLE", "tracer/session.py",
               "file names torch interned before tdiag's handler was attached",
               "those files are resolved from later events only"),
    Touchpoint("torch.__trace", "tracer/trace_logger.py",
               "the structured-trace logger whose records tdiag receives (held through logging reconfiguration)",
               "nothing is captured from torch's structured trace", kind="logger", stage="start"),
    Touchpoint("torch._inductor.compile_fx.compile_fx", "compiler/backend.py",
               "the tdiag backend (Inductor with provenance tracking)", "the backend is not registered"),
    Touchpoint("torch._inductor.config.trace", "compiler/backend.py",
               "provenance_tracking_level switched on for kernel-to-line attribution",
               "kernels are attributed from their names only"),
    Touchpoint("torch._inductor.graph", "compiler/lowering_watch.py",
               "Inductor's graph logger: fallback and lowering decisions", "no lowering_info events", kind="logger"),
    Touchpoint("torch._dynamo.output_graph.OutputGraph", "compiler/module_stacks.py",
               "the module stack of each compiled graph's nodes", "graphs are named after the frame, not the module"),
    Touchpoint("torch._dynamo.backends.debugging", "compiler/provenance.py",
               "recognises the debugging backends (eager, aot_eager) that need no provenance",
               "provenance is switched on for them too (harmless)", stage="none"),
    Touchpoint("torch._inductor.lowering.fallbacks", "compiler/fallback_ops.py",
               "the ops Inductor falls back to ATen for (LOW001)", "LOW001 relies on the generated code only"),
    Touchpoint("torch._inductor.runtime.triton_heuristics.CachingAutotuner", "compiler/launch_metadata.py",
               "Triton launches (kernel names, grids) on CUDA; imported lazily", "no triton_launch events"),
    Touchpoint("torch._inductor.codecache.PyCodeCache", "compiler/launch_metadata.py",
               "the generated modules, to map a launch to its source", "launches are named but not placed"),
    Touchpoint("torch._inductor.virtualized.V", "compiler/deep_hooks.py",
               "--deep: the graph being lowered, for fusion groups", "--deep records no fusion groups", stage="deep"),
    Touchpoint("torch._inductor.async_compile.AsyncCompile", "compiler/deep_hooks.py",
               "--deep: kernel compile times", "--deep records no kernel compile times", stage="deep"),
    Touchpoint("torch._inductor.cudagraph_utils", "compiler/cudagraph_watch.py",
               "log_cudagraph_skip_and_bump_counter: why CUDA graphs were skipped (CGR001)",
               "no cudagraph skip reasons; the watcher's failure is counted as a capture problem"),
    Touchpoint("torch._inductor.cudagraph_trees", "compiler/cudagraph_watch.py",
               "recordings and re-recordings of CUDA graph trees (CGR002)", "no cudagraph recordings", stage="loaded"),
    Touchpoint("torch._dynamo.backends.distributed", "compiler/cudagraph_watch.py",
               "DDPOptimizer's bucket splits (DST001)", "DDP splits read as graph breaks", kind="logger", stage="loaded"),
    Touchpoint("torch._inductor.compile_fx._compile_fx_inner", "compiler/aot_node_stacks.py",
               "wrapped: each AOT graph Inductor compiles (forward, backward) with its nodes' module stacks",
               "backward kernels are not named after modules", tested=("2.13.0", "2.14.1")),
    Touchpoint("torch._inductor.output_code.CompiledFxGraph", "compiler/aot_node_stacks.py",
               "post_compile wrapped (a graph loaded from a cache) and _fx_graph_cache_key (names its calls in a profile)",
               "kernels of AOTAutograd-cache hits are not named after modules; no per-launch kernel time",
               tested=("2.13.0", "2.14.1")),
    Touchpoint("torch._inductor.debug._inductor_kernel_provenance_debug_handle", "compiler/aot_node_stacks.py",
               "the provenance handle counter, to read one compile's kernel -> node map by handle range",
               "a lazily compiled backward's kernel nodes are inferred from kernel names", tested=("2.13.0", "2.14.1")),
    Touchpoint("torch._inductor.debug._inductor_triton_kernel_to_post_grad_node_info", "compiler/aot_node_stacks.py",
               "kernel -> post-grad nodes of a lazily compiled backward (its provenance artifact is empty)",
               "a lazily compiled backward's kernel nodes are inferred from kernel names", tested=("2.13.0", "2.14.1")),
    Touchpoint("torch._inductor.runtime.cache_dir_utils.cache_dir", "compiler/aot_node_stacks.py",
               "where a compile's node stacks are kept beside Inductor's cache, for later cache hits",
               "cache hits in a later run are not named after modules", tested=("2.13.0", "2.14.1")),
)
