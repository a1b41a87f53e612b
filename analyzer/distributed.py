"""DDP/FSDP facts: DDPOptimizer's bucket splits per graph, and which wrapper a run's compiled frames went through.

DDPOptimizer (torch/_dynamo/backends/distributed.py) cuts one Dynamo graph into subgraphs at gradient-bucket
boundaries so DDP can all-reduce a bucket while backward still runs: ``optimize_ddp_split_graph`` and one
``optimize_ddp_split_child`` per subgraph (payload: its readable GraphModule) in the structured trace, all under
the compile id of the graph they split. These are splits by design, not graph breaks. Pure: no torch.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

from tdiag.analyzer.model import Analysis, DdpBucket, SourceRef
from tdiag.analyzer.paths import PathMapper

from tdiag.lazy_regex import lazy_regex

SPLIT_CHILD = "optimize_ddp_split_child"
# forward(self, l_x_: "f32[8, 512]", l_self_modules_layers_modules_0_parameters_weight_: "f32[512, 512]", ...)
_PARAM = lazy_regex(r"(\w*_parameters_\w+?)_?\s*:\s*\"(\w+)\[([^\]]*)\]")
_FILE_COMMENT = lazy_regex(r"# File: (.+?):(\d+) in [^,]+, code: (.*)")
_DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "b8": 1,
                "c64": 8, "c128": 16, "f8e4m3fn": 1, "f8e5m2": 1}
FSDP2 = "fully_shard (FSDP2)"
WRAPPER_CLASSES = {"DDP", "DistributedDataParallel", "FSDP", "FullyShardedDataParallel"}
WRAPPERS = {  # a path fragment of the wrapper's module -> its name (first match wins)
    "nn/parallel/distributed.py": "DistributedDataParallel",
    "distributed/fsdp/_fully_shard/": FSDP2,
    "distributed/_composable/fsdp": FSDP2,
    "distributed/fsdp/": "FullyShardedDataParallel",
}


def stage(facts) -> None:
    """The distributed stage of analyzer/stages.py."""
    attach(facts.analysis, facts.log)


def attach(analysis: Analysis, log: Any) -> None:
    """Set ``CompiledGraph.ddp_buckets`` from DDPOptimizer's split events."""
    paths = PathMapper(log.header.get("root"), log.header.get("tool_paths"), log.header.get("cwd"))
    children: dict[tuple[Any, str], list[DdpBucket]] = defaultdict(list)
    for ev in log.named(SPLIT_CHILD):
        name = ev.data.get("name")
        if ev.compile_id is None or not isinstance(name, str):
            continue
        children[(ev.rank, ev.compile_id)].append(parse_child(name, ev.payload or "", paths))
    for graph in analysis.graphs:
        buckets = children.get((graph.rank, graph.compile_id))
        if buckets:
            graph.ddp_buckets = buckets


def parse_child(name: str, payload: str, paths: PathMapper | None = None) -> DdpBucket:
    """One subgraph's parameters (with their bytes) and the user lines of its ops."""
    signature = next((line for line in payload.splitlines() if line.strip().startswith("def forward(")), "")
    params, total = [], 0
    for raw, dtype, dims in _PARAM.findall(signature):
        params.append(param_name(raw))
        size = _bytes(dtype, dims)
        total = None if size is None or total is None else total + size
    lines: list[SourceRef] = []
    for path, line, code in _FILE_COMMENT.findall(payload):
        ref = SourceRef(paths.display(path) if paths else path, int(line), code.strip())
        if not any((r.path, r.line) == (ref.path, ref.line) for r in lines):
            lines.append(ref)
    return DdpBucket(name=name, params=params, bytes=total if params else 0, lines=lines)


def param_name(graph_input: str) -> str:
    """Dynamo's flattened input name -> the parameter's dotted name: ``l_self_modules_fc_parameters_weight_`` ->
    ``fc.weight``."""
    name = re.sub(r"^[lL]_", "", graph_input).rstrip("_")
    name = re.sub(r"^self_", "", name)
    name = re.sub(r"^modules_", "", name)
    return name.replace("_modules_", ".").replace("_parameters_", ".")


def _bytes(dtype: str, dims: str) -> int | None:
    width = _DTYPE_BYTES.get(dtype)
    if width is None:
        return None
    sizes = [d.strip() for d in dims.split(",") if d.strip()]
    if not all(d.isdigit() for d in sizes):
        return None  # a symbolic size
    return width * math.prod(int(d) for d in sizes)


def wrapper_of(analysis: Analysis) -> str | None:
    """The distributed wrapper whose code Dynamo went through (its frames or the library frames of breaks)."""
    seen = [g.path for g in analysis.graphs]
    for b in analysis.breaks:
        seen += [f.path for f in b.user_stack]
        if b.library_frame is not None:
            seen.append(b.library_frame.path)
    for fragment, name in WRAPPERS.items():
        if any(fragment in p.replace("\\", "/") for p in seen):
            return name
    return None


def format_bytes(n: int | None) -> str:
    if n is None:
        return "? bytes"
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB" if n >= 2**10 else f"{n} B"


def wrapper_compile_calls(module) -> list:
    """The ``torch.compile(DDP(...), ...)`` calls (or FSDP) of a libcst module, by the names as written."""
    import libcst as cst

    found = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if _dotted(node.func) in ("torch.compile", "compile") and node.args and node.args[0].keyword is None:
                inner = node.args[0].value
                if isinstance(inner, cst.Call) and (_dotted(inner.func) or "").rsplit(".", 1)[-1] in WRAPPER_CLASSES:
                    found.append(node)

    module.visit(Finder())
    return found


def compile_line(text: str) -> int | None:
    """The line of the single ``torch.compile(DDP(...))`` call in a source text, if there is exactly one."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    except cst.ParserSyntaxError:
        return None
    calls = wrapper_compile_calls(wrapper.module)
    if len(calls) != 1:
        return None
    return wrapper.resolve(PositionProvider)[calls[0]].start.line


def _dotted(node) -> str | None:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def wrapper_breaks(analysis: Analysis, fragment: str = "distributed/fsdp/") -> list:
    """The graph breaks that happened inside the wrapper's own code (its hooks), reached from a user line."""
    return [b for b in analysis.breaks if b.library_frame is not None and fragment in b.library_frame.path.replace("\\", "/")]


FSDP2_HOOK_FRAMES = ("distributed/fsdp/_fully_shard/", "distributed/_composable/fsdp")
FSDP2_FULLGRAPH_FIX = (
    "compile each block after sharding it instead (fully_shard(block); block.compile(fullgraph=True)), so FSDP2's "
    "hooks run between the compiled blocks, or drop fullgraph=True for the model")


def fsdp2_hook_break(text: str) -> bool:
    """A graph break in FSDP2's hooks: they run under ``torch._dynamo.disable`` ("skipping FSDP hooks",
    torch/distributed/fsdp/_fully_shard/_fsdp_common.py), so a compiled region that calls a fully_shard'ed module
    cannot be one graph (pytorch#181924): the break's user stack passes through FSDP2's files."""
    return any(frame in text for frame in FSDP2_HOOK_FRAMES)
