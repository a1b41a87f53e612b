"""The measured runtime window as rules read it: the lead rank's window, parsed once by the runtime stage
(``analyzer/runtime.py``, read through ``RuleContext.measured_window``), and where a finding about the step goes.
"""

from __future__ import annotations

from tdiag.analyzer.model import Frame, RuntimeSummary
from tdiag.analyzer.paths import PathMapper, is_library_display
from tdiag.analyzer.runtime import INPUT_PREPARATION, step_entry


def lead_window(ctx) -> RuntimeSummary | None:
    """The measured window of the lowest rank (or the only one); None when nothing was measured."""
    return ctx.measured_window


def ms_per_step(seconds: float, runtime: RuntimeSummary) -> float:
    return seconds / runtime.steps * 1e3 if runtime.steps else 0.0


def step_site(ctx, runtime: RuntimeSummary) -> str:
    """The step callable's file as the analysis displays paths (the graphs' display paths are suffixes of it)."""
    path = runtime.step_path or ""
    for graph in ctx.analysis.graphs:
        if graph.path and (path == graph.path or path.endswith("/" + graph.path)):
            return graph.path
    return path


def step_anchor(ctx, runtime: RuntimeSummary) -> dict:
    """Where a finding about the whole step goes: the step callable's def when it is the user's code; when it is a
    library's (a compiled ``nn.Sequential``: its ``forward`` is torch's), the user's line that entered its frame,
    with the library frame kept beside it."""
    path, line = step_site(ctx, runtime), runtime.step_line or 1
    # the step's frame: its code's file and line, or its name (torch compiles a module's forward through its own
    # wrapper, whose file the graph then carries)
    frames = [g for g in ctx.analysis.graphs if (g.path, g.line) == (path, line)] or [
        g for g in ctx.analysis.graphs if runtime.step_function and g.code_name == runtime.step_function]
    if frames:
        site, library = ctx.graph_anchor(min(frames, key=lambda g: (g.frame_id, g.frame_compile_id)))
        if library is not None or site.path == path:
            return {"path": site.path, "line": site.line, "library_frame": library}
    shown, library_step = _displayed(ctx, path)
    entry = step_entry(ctx.analysis, runtime) if library_step else None
    if entry is not None:  # a library's step with no graph of its own (a frame Dynamo skipped): the user's line
        entry_path, _, entry_line = entry.rpartition(":")
        return {"path": entry_path, "line": int(entry_line),
                "library_frame": Frame(shown, line, runtime.step_function or "?", is_user=False)}
    return {"path": shown, "line": line}


def _displayed(ctx, path: str) -> tuple[str, bool]:
    """The step's file as the analysis shows paths, and whether it is a library's (the runtime event carries the
    interpreter's absolute path)."""
    if is_library_display(path):
        return path, bool(path)
    header = ctx.log.header if ctx.log is not None else {}
    paths = PathMapper(header.get("root"), header.get("tool_paths"), header.get("cwd"))
    return paths.display(path), paths.is_library(path)


def movable_parts(runtime: RuntimeSummary) -> dict[str, float]:
    """The window's eager parts (seconds) that are work a user could compile or shrink: every part but the program's
    own input preparation (``INPUT_PREPARATION``: what made each step's first compiled call's inputs)."""
    return {name: seconds for name, seconds in runtime.eager_parts.items() if name != INPUT_PREPARATION}
