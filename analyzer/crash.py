"""The ``crash`` events of a record -> ``Crash``: what stopped the program, and whether torch.compile did.

Each kind is recognised from torch's own exception type and message (the record keeps both, see
tracer/crash.py), and placed on the user's line: the construct Dynamo was tracing (torch's ``real_stack``, or the
"User stack" torch quotes), else the compiled call that raised (the innermost user frame of the traceback).
Pure: no torch; the record's text only.
"""

from __future__ import annotations

import re
from typing import Any

from tdiag.analyzer.model import Crash, Recompile, Site
from tdiag.analyzer.paths import PathMapper
from tdiag.analyzer.ranking import first_stopped

from tdiag.lazy_regex import lazy_regex

# Frames of torch's compile stack: an exception raised through one of them came from torch.compile.
COMPILE_STACK = ("/torch/_dynamo/", "/torch/_inductor/", "/torch/_functorch/", "/torch/fx/experimental/",
                 "/torch/_subclasses/fake_tensor", "/torch/_guards.py", "/torch/compiler/")
COMPILE_MODULES = ("torch._dynamo.", "torch._inductor.", "torch._functorch.", "torch.fx.experimental.")
CUDAGRAPH_OVERWRITTEN = "accessing tensor output of CUDAGraphs that has been overwritten"
CUDAGRAPH_GRAD_OVERWRITTEN = "accessing gradient tensor output of CUDAGraphs that has been overwritten"
_GB_URL = lazy_regex(r"/gb/(gb\d{4})\.html", re.IGNORECASE)
_USER_STACK = lazy_regex(r'File "([^"]+)", line (\d+), in (\S+)')
_TARGET = lazy_regex(r"^\s*target: (\S+)\s*$", re.M)
_NODE_FILE = lazy_regex(r"^\s*# File: (.+?):(\d+) in (\S+)")
_GUARD_FAILURE = lazy_regex(r"^\s*- (?:\d+/\d+: )?(.+?)\s*(?:#.*)?$")
_DATA_DEPENDENT = lazy_regex(r"Could not guard on data-dependent expression (.+?) \(unhinted")
_CONSTRAINT = lazy_regex(r"You marked (\S+) as dynamic but your code specialized it to be a constant \((\d+)\)")
_CONSTRAINT_NAME = lazy_regex(r"Constraints violated \((.+?)\)!")

# Environment failures: (marker in the message, what is wrong, the fix).
ENVIRONMENT = (
    ("InvalidCxxCompiler", "no working C++ compiler",
     "install a C++ compiler (e.g. `apt install g++`), or point CXX at a working one; Inductor builds its CPU "
     "kernels with it (backend=\"aot_eager\" runs without one meanwhile)"),
    ("No working C++ compiler", "no working C++ compiler",
     "install a C++ compiler (e.g. `apt install g++`), or point CXX at a working one"),
    ("Cannot find a working triton installation", "Triton is not installed",
     "install the Triton build that matches this torch (`pip install triton` of the version torch pins), or "
     "compile for the CPU"),
    ("No module named 'triton'", "Triton is not installed",
     "install the Triton build that matches this torch (`pip install triton` of the version torch pins)"),
    ("triton", "Triton of another version than this torch expects",
     "install the Triton version this torch was built with (see torch's requirements), not a newer or older one"),
    ("out of resource: shared memory", "a kernel needs more shared memory than the GPU has",
     "lower the block sizes (torch._inductor.config.triton.max_block) or use mode=\"max-autotune-no-cudagraphs\""),
)
_TRITON_VERSION = ("ImportError", "cannot import name", "has no attribute", "version")


def read_crashes(crashes: list[dict[str, Any]], paths: PathMapper, recompiles: list[Recompile]) -> list[Crash]:
    out = []
    for ev in crashes:
        try:
            out.append(_crash(ev, paths, recompiles))
        except Exception:  # a damaged crash event: keep what can be said
            out.append(Crash(kind="program", exception=str(ev.get("exception")), headline=_first_line(str(ev.get("message"))),
                             caused_by_torch=False, rank=ev.get("rank")))
    return out


def ending(crashes: list[Crash]) -> Crash | None:
    """The crash to lead with: the one that ended the program, else the first thread that died of torch.compile."""
    torch_caused = [c for c in crashes if c.caused_by_torch]
    return next((c for c in torch_caused if c.ended_program), torch_caused[0] if torch_caused else None)


def _crash(ev: dict[str, Any], paths: PathMapper, recompiles: list[Recompile]) -> Crash:
    exception = ev["exception"]
    message = str(ev.get("message") or "")
    inner = ev.get("inner") if isinstance(ev.get("inner"), dict) else None
    thread = str(ev.get("thread") or "MainThread")
    frames = _frames(ev.get("frames"))
    crash = Crash(
        kind="program", exception=exception, headline=_first_line(message), message=message, thread=thread,
        ended_program=thread == "MainThread", caused_by_torch=True,
        compile_id=ev.get("compile_id"), gb_type=ev.get("gb_type"), rank=ev.get("rank"),
    )
    crash.call_site = _entry(frames, paths)
    cause = _innermost_user(_frames(ev.get("user_stack")), paths) or _quoted_user_line(message, paths)
    m = _GB_URL.search(message)
    crash.gb_id = m.group(1).upper() if m else None
    short = exception.rsplit(".", 1)[-1]
    chain_text = " ".join(f"{c.get('exception')}: {c.get('message')}" for c in ev.get("causes") or [] if isinstance(c, dict))

    if CUDAGRAPH_OVERWRITTEN in message or CUDAGRAPH_GRAD_OVERWRITTEN in message:
        crash.kind = "cudagraph_overwritten"
        crash.site = crash.call_site  # the line that read the overwritten output
        crash.policy = 'mode="reduce-overhead"'
        return crash
    if short == "ConstraintViolationError" or "Constraints violated" in message:
        crash.kind = "constraint_violation"
        m = _CONSTRAINT.search(message)
        name = _CONSTRAINT_NAME.search(message)
        crash.detail = (f"{m.group(1)} was marked dynamic (mark_dynamic) but the code specialised it to {m.group(2)}"
                        if m else (name.group(1) if name else None))
        crash.site = cause or crash.call_site
        return crash
    if _DATA_DEPENDENT.search(message) or "GuardOnDataDependentSymNode" in f"{short} {chain_text}":
        crash.kind = "data_dependent_guard"
        m = _DATA_DEPENDENT.search(message)
        crash.detail = m.group(1) if m else None
        crash.site = cause or crash.call_site
        crash.policy = "fullgraph=True"
        return crash
    policy = _recompile_policy(short, message)
    if policy is not None:
        crash.kind = "recompile_policy"
        crash.policy = policy
        guards = _guard_failures(message)
        if guards:
            crash.detail = "; ".join(guards)
        else:
            crash.detail = _last_recompile_guard(recompiles, ev.get("rank"))
        crash.site = crash.call_site
        return crash
    if short == "Unsupported" or crash.gb_type:
        crash.kind = "graph_break"
        crash.site = cause or crash.call_site
        return crash
    environment = _environment(f"{message}\n{chain_text}", short)
    if environment is not None:
        crash.kind = "environment"
        crash.detail = environment[0]
        crash.site = crash.call_site
        return crash
    if short in ("BackendCompilerFailed", "InductorError", "LoweringException") or inner is not None:
        crash.kind = "backend_failed"
        backend = ev.get("backend_name") or ("inductor" if short == "InductorError" else None)
        own = f"{inner.get('exception')}: {_first_line(str(inner.get('message') or ''))}" if inner else crash.headline
        crash.detail = f"backend {backend!r} raised {own}" if backend else own
        target = _TARGET.search(message)
        if target is not None:
            crash.detail += f" (op {target.group(1)})"
        # the node's user line where torch quotes one (op_sites() looks the op up in the graph); else the user's
        # own backend code that raised (a frame below torch's entry), else the compiled call
        below_torch = frames[len(_up_to_torch(frames, paths)):]
        own_backend = None if backend == "inductor" else _innermost_user(below_torch, paths)
        crash.site = _quoted_user_line(message, paths) or own_backend or crash.call_site
        return crash
    if _from_compile_stack(exception, ev, paths) or crash.compile_id:
        crash.kind = "compile_stack"
        crash.site = cause or crash.call_site
        return crash
    crash.caused_by_torch = False
    crash.site = crash.call_site
    return crash


def _guard_failures(message: str) -> list[str]:
    """The failed guards torch lists after "triggered by the following guard failure(s):", without its source
    comments and the user stack it appends."""
    _, found, rest = message.partition("guard failure(s):")
    out = []
    for line in rest.splitlines() if found else []:
        m = _GUARD_FAILURE.match(line)
        if m is None or m.group(1).startswith(("User stack", "File ", "  ")) or line.strip().startswith("-  "):
            continue
        out.append(m.group(1))
    return out


def _recompile_policy(short: str, message: str) -> str | None:
    if "stance is 'fail_on_recompile'" in message:
        return 'torch.compiler.set_stance("fail_on_recompile")'
    if short == "RecompileError":
        return "torch._dynamo.config.error_on_recompile = True"
    if short == "FailOnRecompileLimitHit":
        if "fullgraph" in message:
            return "the recompile limit under fullgraph=True"
        return "torch._dynamo.config.fail_on_recompile_limit_hit = True"
    return None


def environment_fix(what: str | None) -> str:
    """The fix for an environment failure ``_environment`` named."""
    return next((fix for _, name, fix in ENVIRONMENT if name == what), "fix the compiler toolchain torch reports")


def _environment(text: str, short: str) -> tuple[str, str] | None:
    for marker, what, fix in ENVIRONMENT:
        if marker == "triton":
            lowered = text.lower()
            if "triton" in lowered and any(w.lower() in lowered for w in _TRITON_VERSION):
                return what, fix
            continue
        if marker in text:
            return what, fix
    return None


def _last_recompile_guard(recompiles: list[Recompile], rank: int | None) -> str | None:
    """The guard of the last recompile torch logged (the limit was reached by that one)."""
    mine = [r for r in recompiles if r.rank == rank and r.failures]
    return mine[-1].failures[0].text if mine else None


def _from_compile_stack(exception: str, ev: dict[str, Any], paths: PathMapper) -> bool:
    if exception.startswith(COMPILE_MODULES):
        return True
    stacks = [ev.get("frames")] + [c.get("frames") for c in ev.get("causes") or [] if isinstance(c, dict)]
    for stack in stacks:
        for path, _line, _name in _frames(stack):
            p = paths.absolute(path).replace("\\", "/")
            if any(marker in p for marker in COMPILE_STACK):
                return True
    return False


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
    """A backend failure that names its op (``target: aten.foo.default``): the user line of that op's node, from
    the Dynamo graph of the failed compile (its ``# File: path:line`` comments)."""
    for crash in crashes:
        target = _TARGET.search(crash.message) if crash.kind == "backend_failed" else None
        if target is None:
            continue
        graphs = [g for g in analysis.graphs if g.rank == crash.rank and g.graph_code_ref is not None
                  and (crash.compile_id is None or g.compile_id == crash.compile_id)]
        for graph in reversed(graphs):
            site = _node_site(analysis.code.get(graph.graph_code_ref) or "", target.group(1), paths)
            if site is not None:
                crash.site = site
                break


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
