"""The MCP server itself: tools and resources over ``queries``, ``programs`` and ``fixes``, on the official SDK.

Every tool error (a missing record, a program that crashed, a bad argument, a path outside the working directory)
comes back as an error result with a clear message, and the server keeps serving; a bug of tdiag's own comes back
as "internal error" with where its traceback was saved.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from pydantic import Field

import tdiag
from tdiag.commands._analysis import AnalysisFailed
from tdiag.errors import TdiagError
from tdiag.mcp_server import fixes, programs, queries
from tdiag.mcp_server.workspace import Workspace

INSTRUCTIONS = """tdiag finds what stops torch.compile from making a PyTorch program fast (graph breaks, recompilations,
eager fallbacks, slow kernels), measures what each costs, and offers patches on the user's own lines.
The loop: run_program -> list_findings (ranked by measured cost) -> explain_rule for an unfamiliar code ->
fix_findings with verify=true (patches a scratch copy, re-runs, before/after counts) -> fix_findings with apply=true
(writes only what verified; undo_fix takes it back). Paths are relative to the server's working directory."""

Record = Annotated[str, Field(description="a record: the run directory run_program returned (or an events*.jsonl "
                                          "file), relative to the server's working directory")]
Codes = Annotated[list[str] | None, Field(description="rule codes or prefixes, as tdiag lint takes them: "
                                                      "['BRK'], ['RCP001', 'BRK001'], ['ALL']")]


def build_server(root: Path) -> MCPServer:
    space, analyses = Workspace(root), queries.Analyses()
    server = MCPServer("tdiag", version=tdiag.__version__, instructions=INSTRUCTIONS)

    async def analysis_of(record: str):
        path = space.record(record)
        return path, await anyio.to_thread.run_sync(analyses.get, path)

    @server.tool(description="Run a Python program (or -m module) under `tdiag run` in the server's working "
                 "directory and record what torch.compile did. Returns the record's path (pass it to the other "
                 "tools), the counts (graphs, graph breaks, recompiles), the costliest findings and the program's "
                 "output tail. Sends progress notifications while it runs. A program that exits non-zero is an "
                 "error whose message names its record when one was written.")
    @_tool_errors
    async def run_program(
        program: Annotated[str, Field(description="the script, relative to the working directory (or a module "
                                                  "name with module=true)")],
        ctx: Context,
        args: Annotated[list[str] | None, Field(description="the program's own arguments")] = None,
        module: Annotated[bool, Field(description="run `program` as a module, like python -m")] = False,
        output: Annotated[str | None, Field(description="record directory (default tdiag-runs/<program>-<time>)")]
        = None,
        profile: Annotated[bool, Field(description="measure a runtime window so findings get a cost per step")]
        = True,
        vs_eager: Annotated[bool, Field(description="also run it with torch.compile disabled and compare the step "
                                                    "time")] = False,
        timeout_s: Annotated[float | None, Field(gt=0, description="stop the program after this many seconds")]
        = None,
    ) -> dict[str, Any]:
        from tdiag.rundir import choose_run_dir

        if module:
            programs.check_module(program)
            label = program.rsplit(".", 1)[-1]
        else:
            script = space.inside(program, "program")
            if not script.is_file():
                raise TdiagError(f"no program at {program}")
            program, label = str(script), script.stem
        out = space.inside(output, "output") if output else space.root / choose_run_dir(None, label)
        cmd = programs.command(program, list(args or []), module, out, profile, vs_eager)

        async def progress(elapsed: float, message: str) -> None:
            await ctx.report_progress(elapsed, None, f"{elapsed:.0f} s {message}")

        done = await programs.run(cmd, space.root, out / "events.jsonl", timeout_s, progress)
        record = space.relative(out)
        if not (out / "events.jsonl").exists():
            raise TdiagError(f"tdiag run left no record (exit status {done.exit_code}): {done.stderr.strip()}")
        _, analysis = await analysis_of(record)
        result = {**queries.summary(analysis, record), "exit_code": done.exit_code, "wall_s": round(done.wall_s, 1),
                  "stdout_tail": done.stdout, "stderr_tail": done.stderr}
        if done.exit_code != 0:
            crash = result["crash"]
            why = f"torch.compile stopped it: {crash['headline']}" if crash else "an error of the program's own"
            raise TdiagError(f"the program exited with status {done.exit_code} ({why}). Its record is {record}: "
                             f"list_findings reads it. Last output:\n{done.stderr.strip()[-1500:]}")
        return result

    @server.tool(description="List a record's findings, costliest first (measured cost per step, or compile "
                 "seconds). Each finding has the analysis JSON's shape (code, name, severity, path, line, message, "
                 "fix, cost, suggestion.patch: a unified diff against the recorded source) plus the source lines "
                 "around it. `incomplete` non-empty means the capture or analysis missed something: an empty list is "
                 "then no all-clear.")
    @_tool_errors
    async def list_findings(
        record: Record,
        select: Codes = None,
        ignore: Codes = None,
        limit: Annotated[int, Field(ge=1, le=500, description="at most this many findings")] = 20,
        evidence: Annotated[bool, Field(description="include what the rule saw (stacks, guards): large")] = False,
    ) -> dict[str, Any]:
        path, analysis = await analysis_of(record)
        return queries.findings(analysis, space.relative(path), select, ignore, limit, evidence)

    @server.tool(description="Explain a rule (e.g. BRK001 or data-dependent-branch): what it finds, why it is slow, "
                 "an example and the fix, as `tdiag rule CODE` prints it. `all` lists every rule.")
    @_tool_errors
    async def explain_rule(code: Annotated[str, Field(description="a rule code, a rule name, or all")]) -> str:
        return queries.rule(code)

    @server.tool(description="The record's patches (unified diffs, with the findings each fixes). verify=true "
                 "patches a scratch copy, re-runs the recorded command under tdiag and compares before/after "
                 "(graphs, graph breaks, recompiles, step time, exit code, identical stdout), in rounds while fixes "
                 "uncover further causes; each patch that verified and paid is in `kept`. apply=true verifies, then "
                 "writes only what verified (never a file changed since the run or with uncommitted changes) and "
                 "returns the undo. Takes minutes: each re-run is a full program run; progress is reported.")
    @_tool_errors
    async def fix_findings(
        record: Record,
        ctx: Context,
        select: Codes = None,
        ignore: Codes = None,
        verify: Annotated[bool, Field(description="measure the patches on a scratch copy")] = False,
        apply: Annotated[bool, Field(description="write the verified patches to the project (implies verify)")]
        = False,
        each: Annotated[bool, Field(description="with verify: also measure each patch alone")] = False,
        repeat: Annotated[int, Field(ge=1, le=10, description="runs of each side (a timing verdict needs 2)")] = 2,
        rounds: Annotated[int, Field(ge=1, le=10, description="at most this many rounds of patch and re-run")] = 5,
        timeout_s: Annotated[float | None, Field(gt=0, description="give up on a re-run after this long")] = None,
    ) -> dict[str, Any]:
        path, analysis = await analysis_of(record)
        job = functools.partial(fixes.fix, path, analysis, select, ignore, verify, apply, each, repeat, rounds,
                                timeout_s)
        if not (verify or apply):
            return await anyio.to_thread.run_sync(job)
        return await _with_heartbeat(ctx, "verifying patches (each re-run is a full program run)", job)

    @server.tool(description="Undo the last apply of fix_findings on this record: restores the files it wrote "
                 "(refused for a file edited since).")
    @_tool_errors
    async def undo_fix(record: Record) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(fixes.undo, space.record(record))

    @server.tool(description="Compare two records of the same program (e.g. before and after a fix): findings "
                 "fixed, new and unchanged, count and cost changes, and the regressions (empty: none).")
    @_tool_errors
    async def diff_records(
        base: Record, new: Record,
        fail_on: Annotated[str, Field(pattern="^(error|warning|info)$", description="a new finding this severe is a "
                                                                                     "regression")] = "warning",
    ) -> dict[str, Any]:
        _, a = await analysis_of(base)
        _, b = await analysis_of(new)
        return queries.diff(a, b, base, new, fail_on)

    @server.tool(description="Write the record's single-file HTML report (findings, costs, graphs, kernels, "
                 "annotated source) for a person to open; returns its path.")
    @_tool_errors
    async def html_report(
        record: Record,
        output: Annotated[str | None, Field(description="the .html file (default: report.html in the record)")]
        = None,
    ) -> dict[str, Any]:
        path, analysis = await analysis_of(record)
        folder = path if path.is_dir() else path.parent
        target = space.inside(output, "output") if output else folder / "report.html"
        await anyio.to_thread.run_sync(queries.html_report, analysis, record, target)
        return {"path": space.relative(target), "absolute_path": str(target)}

    @server.tool(description="The records under tdiag-runs/ in the working directory, newest first.")
    @_tool_errors
    async def list_records() -> dict[str, Any]:
        rows = [{"record": space.relative(d), "modified": time.strftime("%Y-%m-%d %H:%M:%S",
                                                                        time.localtime(d.stat().st_mtime))}
                for d in space.records()]
        return {"records": rows}

    @server.resource("tdiag://analysis/{+record}", mime_type="application/json",
                     description="A record's whole analysis as JSON (docs/analysis-json.md; generated code left out)")
    async def analysis_resource(record: str) -> str:
        try:
            _, analysis = await analysis_of(record)
        except (TdiagError, AnalysisFailed) as exc:
            raise ResourceNotFoundError(str(exc)) from None
        return queries.analysis_json(analysis)

    @server.resource("tdiag://source/{+record}{?path,line,context}", mime_type="text/plain",
                     description="The recorded source lines around a line of a record's finding (list_findings "
                     "gives each finding's source_uri)")
    async def source_resource(record: str, path: str = "", line: str = "1", context: str = "10") -> str:
        try:
            _, analysis = await analysis_of(record)
            shown = queries.source_lines(analysis, path, int(line), int(context))
        except (TdiagError, AnalysisFailed, ValueError) as exc:
            raise ResourceNotFoundError(str(exc)) from None
        if shown is None:
            raise ResourceError(f"{record} holds no snapshot of {path!r} (sources: {sorted(analysis.sources)})")
        return shown["text"]

    return server


def _tool_errors(fn):
    """A TdiagError (bad record, path, selector) is the message; anything else is an internal error whose traceback
    is saved, as the CLI does; either way an error result, and the server goes on."""

    @functools.wraps(fn)
    async def wrapped(*args, **kwargs):
        try:
            return await fn(*args, **kwargs)
        except ToolError:
            raise
        except TdiagError as exc:
            raise ToolError(str(exc)) from None
        except AnalysisFailed as exc:
            raise ToolError(f"internal error: {exc}") from None
        except Exception as exc:
            from tdiag.errors import save_traceback

            _, _, where = save_traceback(f"tdiag {tdiag.__version__} mcp {fn.__name__}", exc)
            raise ToolError(f"internal error: {type(exc).__name__}: {exc} (traceback {where})") from None

    return wrapped


async def _with_heartbeat(ctx: Context, what: str, job) -> Any:
    """Run the blocking ``job`` in a worker thread, reporting progress every few seconds until it returns."""
    started, outcome, finished = time.monotonic(), {}, anyio.Event()

    async def work() -> None:
        try:
            outcome["value"] = await anyio.to_thread.run_sync(job)
        except Exception as exc:  # re-raised below, outside the task group (which would wrap it in a group)
            outcome["error"] = exc
        finished.set()

    async with anyio.create_task_group() as group:
        group.start_soon(work)
        while not finished.is_set():
            elapsed = time.monotonic() - started
            await ctx.report_progress(round(elapsed, 1), None, f"{elapsed:.0f} s {what}")
            with anyio.move_on_after(programs.PROGRESS_EVERY_S * 2.5):
                await finished.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def serve(root: Path) -> None:
    build_server(root).run("stdio")
