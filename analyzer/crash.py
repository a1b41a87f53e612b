"""The ``crash`` events of a record -> ``Crash``: what stopped the program, and whether torch.compile did.

Here only the facts the CRS rules share are read off the event (tracer/crash.py): torch's exception type and
message, the exceptions chained to it, the user lines (the construct Dynamo was tracing: torch's ``real_stack``, or
the "User stack" torch quotes; the compiled call that raised: the innermost user frame of the traceback). Which kind
of crash it is, and what to do, is decided by the CRS rule that claims it (one file per rule, ``matches`` and
``priority``, rules/_crashes.py). Pure: no torch; the record's text only.
"""

from __future__ import annotations

import re
from typing import Any

from tdiag.analyzer.model import Crash, Recompile, Site
from tdiag.analyzer.paths import PathMapper
from tdiag.analyzer.stopped import first_stopped

from tdiag.lazy_regex import lazy_regex

# Frames of torch's compile stack: an exception raised through one of them came from torch.compile.
COMPILE_STACK = ("/torch/_dynamo/", "/torch/_inductor/", "/torch/_functorch/", "/torch/fx/experimental/",
                 "/torch/_subclasses/fake_tensor", "/torch/_guards.py", "/torch/compiler/")
COMPILE_MODULES = ("torch._dynamo.", "torch._inductor.", "torch._functorch.", "torch.fx.experimental.")
_GB_URL = lazy_regex(r"/gb/(gb\d{4})\.html", re.IGNORECASE)
_USER_STACK = lazy_regex(r'File "([^"]+)", line (\d+), in (\S+)')
_TARGET = lazy_regex(r"^\s*target: (\S+)\s*$", re.M)
_NODE_FILE = lazy_regex(r"^\s*# File: (.+?):(\d+) in (\S+)")

def read_crashes(crashes: list[dict[str, Any]], paths: PathMapper, recompiles: list[Recompile] | None = None) -> list[Crash]:
    """The facts of each crash event. Which kind of crash it is, and its site, policy and detail, are decided by
    the CRS rule that claims it (rules/_crashes.py ``claim_crashes``): lowest priority whose ``matches`` accepts it.
    ``recompiles``: unused (CRS003 reads the analysis' recompiles itself); kept for callers."""
    out = []
    for ev in crashes:
        try:
            out.append(_crash(ev, paths))
        except Exception:  # a damaged crash event: keep what can be said
            out.append(Crash(kind="program", exception=str(ev.get("exception")), headline=_first_line(str(ev.get("message"))),
                             caused_by_torch=False, rank=ev.get("rank")))
    return out


def ending(crashes: list[Crash]) -> Crash | None:
    """The crash to lead with: the one that ended the program, else the first thread that died of torch.compile."""
    torch_caused = [c for c in crashes if c.caused_by_torch]
    return next((c for c in torch_caused if c.ended_program), torch_caused[0] if torch_caused else None)


def _crash(ev: dict[str, Any], paths: PathMapper) -> Crash:
    exception = ev["exception"]
    message = str(ev.get("message") or "")
    inner = ev.get("inner") if isinstance(ev.get("inner"), dict) else None
    thread = str(ev.get("thread") or "MainThread")
    frames = _frames(ev.get("frames"))
    causes = [c for c in ev.get("causes") or [] if isinstance(c, dict)]
    m = _GB_URL.search(message)
    below_torch = frames[len(_up_to_torch(frames, paths)):]
    innermost = causes[-1] if causes else None
    return Crash(
        kind="program", exception=exception, headline=_first_line(message), message=message, thread=thread,
        ended_program=thread == "MainThread", caused_by_torch=False,
        compile_id=ev.get("compile_id"), gb_type=ev.get("gb_type"), rank=ev.get("rank"),
        gb_id=m.group(1).upper() if m else None,
        call_site=_entry(frames, paths),
        chain=" ".join(f"{c.get('exception')}: {c.get('message')}" for c in causes),
        original=str(innermost.get("exception")) if innermost else None,
        original_in_torch=_raised_in_torch(_frames(innermost.get("frames")) if innermost else frames, paths),
        inner=f"{inner.get('exception')}: {_first_line(str(inner.get('message') or ''))}" if inner else None,
        backend=ev.get("backend_name") if isinstance(ev.get("backend_name"), str) else None,
        from_compile_stack=_from_compile_stack(exception, ev, paths),
        cause_site=_innermost_user(_frames(ev.get("user_stack")), paths) or _quoted_user_line(message, paths),
        quoted_site=_quoted_user_line(message, paths),
        backend_site=_innermost_user(below_torch, paths),
        traced=_user_sites(_frames(ev.get("user_stack")) or _quoted_frames(message), paths),
    )


def _user_sites(frames: list[tuple[str, int, str]], paths: PathMapper) -> list[Site]:
    return [Site(paths.display(p), line, function=name) for p, line, name in frames
            if not paths.is_tool(p) and not paths.is_library(p)]


def _quoted_frames(message: str) -> list[tuple[str, int, str]]:
    """The frames torch quotes in its message ("from user code:", "User stack:"), outermost first."""
    return [(m.group(1), int(m.group(2)), m.group(3)) for m in _USER_STACK.finditer(message)]


def short_name(exception: str | None) -> str:
    """``torch._dynamo.exc.Unsupported`` -> ``Unsupported``."""
    return (exception or "").rsplit(".", 1)[-1]


def last_recompile_guard(recompiles: list[Recompile], rank: int | None) -> str | None:
    """The guard of the last recompile torch logged (the limit was reached by that one)."""
    mine = [r for r in recompiles if r.rank == rank and r.failures]
    return mine[-1].failures[0].text if mine else None


def _from_compile_stack(exception: str, ev: dict[str, Any], paths: PathMapper) -> bool:
    if exception.startswith(COMPILE_MODULES) or ev.get("compile_id"):
        return True
    stacks = [ev.get("frames")] + [c.get("frames") for c in ev.get("causes") or [] if isinstance(c, dict)]
    for stack in stacks:
        for path, _line, _name in _frames(stack):
            p = paths.absolute(path).replace("\\", "/")
            if any(marker in p for marker in COMPILE_STACK):
                return True
    return False


def _raised_in_torch(frames: list[tuple[str, int, str]], paths: PathMapper) -> bool:
    """The innermost frame of ``frames`` is in torch.compile's own modules: torch raised it, not the user's code."""
    if not frames:
        return False
    p = paths.absolute(frames[-1][0]).replace("\\", "/")
    return any(marker in p for marker in COMPILE_STACK)


def _frames(value: Any) -> list[tuple[str, int, str]]:
    out = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, list) and len(item) >= 3 and isinstance(item[0], str) and isinstance(item[1], int):
            out.append((item[0], item[1], str(item[2])))
    return out


def _innermost_user(frames: list[tuple[str, int, str]], paths: PathMapper) -> Site | None:
    for path, line, name in reversed(frames):
        if not paths.is_tool(path) and not paths.is_library(path):
            return Site(paths.display(path), line, function=name)
    return None


def _entry(frames: list[tuple[str, int, str]], paths: PathMapper) -> Site | None:
    """The compiled call: the last user frame before the traceback enters torch (a user backend or hook that torch
    then called is deeper); the innermost user frame when it never does (e.g. reading an overwritten output)."""
    return _innermost_user(_up_to_torch(frames, paths), paths) or _innermost_user(frames, paths)


def _up_to_torch(frames: list[tuple[str, int, str]], paths: PathMapper) -> list[tuple[str, int, str]]:
    """The traceback's frames before its first frame in torch."""
    for i, (path, _line, _name) in enumerate(frames):
        if "/torch/" in paths.absolute(path).replace("\\", "/") and paths.is_library(path):
            return frames[:i]
    return frames


def op_sites(crashes: list[Crash], analysis: Any, paths: PathMapper) -> None:
    """A failure that names its op (``target: aten.foo.default``, a backend's): ``crash.op_site``, the user line of
    that op's node, from the Dynamo graph of the failed compile (its ``# File: path:line`` comments)."""
    for crash in crashes:
        target = op_target(crash.message)
        if target is None:
            continue
        graphs = [g for g in analysis.graphs if g.rank == crash.rank and g.graph_code_ref is not None
                  and (crash.compile_id is None or g.compile_id == crash.compile_id)]
        for graph in reversed(graphs):
            site = _node_site(analysis.code.get(graph.graph_code_ref) or "", target, paths)
            if site is not None:
                crash.op_site = site
                break


def op_target(message: str) -> str | None:
    """The op torch names in a lowering or backend error (``target: aten.foo.default``)."""
    m = _TARGET.search(message)
    return m.group(1) if m else None


def _node_site(code: str, target: str, paths: PathMapper) -> Site | None:
    where = None
    for line in code.splitlines():
        m = _NODE_FILE.match(line)
        if m is not None:
            where = m
        elif f"torch.ops.{target}(" in line and where is not None:
            path = where.group(1)
            if paths.is_library(path) or paths.is_tool(path):
                return None
            return Site(paths.display(path), int(where.group(2)), function=where.group(3))
    return None


def _quoted_user_line(message: str, paths: PathMapper) -> Site | None:
    """The innermost user frame torch quotes in its message ("User stack:", "from user code:", "Original traceback")."""
    found = None
    for m in _USER_STACK.finditer(message):
        path = m.group(1)
        if not paths.is_tool(path) and not paths.is_library(path):
            found = Site(paths.display(path), int(m.group(2)), function=m.group(3))
    return found


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def headline(analysis: Any) -> str | None:
    """One line for the top of every output when torch.compile stopped the program (or a thread), else None:
    ``program stopped: Unsupported raised by torch.compile - CRS001 at train.py:6 (graph break GB0170 ...)``."""
    crash = analysis.summary.crash
    if crash is None:
        return None
    who = "program stopped" if crash.ended_program else f"thread {crash.thread!r} stopped"
    first = first_stopped(analysis.findings)
    where = f" - {first.code} at {first.path}:{first.line}" if first is not None else ""
    return f"{who}: {crash.exception.rsplit('.', 1)[-1]} raised by torch.compile{where}: {_first_line(crash.headline)}"
