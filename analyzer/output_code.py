"""Parse one graph's ``inductor_output_code``: its kernel definitions and its call sites, in execution order.

The call sites of the wrapper's ``call`` are the authoritative kernel list of a graph (the provenance artifacts can
be empty or polluted for a lazily compiled backward). Each call may be preceded by ``# [Provenance debug handles]
K:N`` (provenance level >= 1) and, for extern and fallback calls, by ``# Topologically Sorted Source Nodes: [...]``.
"""

from __future__ import annotations

import re
from dataclasses import field

from tdiag.lean_dataclass import lean_dataclass

AOT_ROLE = re.compile(r"#\s*AOT ID:\s*\['[^']*?_(forward|backward|inference)'\]")
KERNEL_DEF = re.compile(r"^([A-Za-z_]\w*) = async_compile\.(\w+)\(")
HANDLE = re.compile(r"^#\s*\[Provenance debug handles\]\s*(\S+?):(\d+)\s*$")
SOURCE_NODES = re.compile(r"^#\s*Topologically Sorted Source Nodes:\s*\[(.*?)\](?:,\s*Original ATen:\s*\[(.*?)\])?")
CALL = re.compile(r"^(?:[\w\s,]+=\s*)?([A-Za-z_][\w.]*)\(")
DISPATCHER_OP = re.compile(r"^torch\.ops\.([A-Za-z_]\w*)\.\w+\.\w+$")
BUFFER_ALLOC = re.compile(r"^(buf\d+) = empty_strided_\w+\(\(([^)]*)\)")
OUT_BUFFER = re.compile(r"\bout=(buf\d+)\)")
END_OF_CALL = ("def get_args(", "def benchmark_compiled_module(", 'if __name__ == "__main__":')
INTERNAL_NAMESPACES = frozenset({"inductor", "prims_debug"})
DEVICE_MARKERS = (("cuda", re.compile(r"empty_strided_cuda\(\(|get_raw_stream\(|device_str='cuda'")),
                  ("xpu", re.compile(r"empty_strided_xpu\(\(|device_str='xpu'")))


@lean_dataclass
class KernelDef:
    name: str
    compiler: str  # cpp_pybinding, triton, ...
    source: str


@lean_dataclass
class CallSite:
    name: str  # cpp_fused_sum_1, triton_poi_fused_gelu_0, extern_kernels.addmm, torch.ops.aten._cdist_forward.default
    handle: str | None = None  # "cpp_fused_sum_1:5"
    source_nodes: list[str] = field(default_factory=list)
    aten_ops: list[str] = field(default_factory=list)
    out_shape: list[int] | None = None  # an extern call's ``out=`` buffer, when its sizes are static


@lean_dataclass
class OutputCode:
    role: str | None  # forward, backward, inference (None when the header is missing)
    device: str
    definitions: dict[str, KernelDef]
    calls: list[CallSite]
    has_handles: bool


def parse(text: str) -> OutputCode:
    role_match = AOT_ROLE.search(text)
    lines = text.splitlines()
    definitions = _definitions(lines)
    calls = _calls(lines, definitions)
    device = next((name for name, marker in DEVICE_MARKERS if marker.search(text)), "cpu")
    return OutputCode(role_match.group(1) if role_match else None, device, definitions, calls,
                      any(c.handle for c in calls))


def _definitions(lines: list[str]) -> dict[str, KernelDef]:
    out: dict[str, KernelDef] = {}
    i = 0
    while i < len(lines):
        m = KERNEL_DEF.match(lines[i])
        if m is None or "'''" not in lines[i]:
            i += 1
            continue
        body: list[str] = []
        first = lines[i].split("'''", 1)[1]
        if "'''" in first:  # one-line source
            out[m.group(1)] = KernelDef(m.group(1), m.group(2), first.split("'''", 1)[0])
            i += 1
            continue
        body.append(first)
        i += 1
        while i < len(lines) and "'''" not in lines[i]:
            body.append(lines[i])
            i += 1
        if i < len(lines):
            body.append(lines[i].split("'''", 1)[0])
        out[m.group(1)] = KernelDef(m.group(1), m.group(2), "\n".join(body).strip("\n"))
        i += 1
    return out


def _calls(lines: list[str], definitions: dict[str, KernelDef]) -> list[CallSite]:
    calls: list[CallSite] = []
    in_string = False
    handle: tuple[str, str] | None = None
    nodes: tuple[list[str], list[str]] | None = None
    shapes: dict[str, list[int] | None] = {}  # buffer -> static sizes, from its allocation
    for raw in lines:
        quotes = raw.count("'''")
        if in_string or (quotes % 2 == 1 and not raw.startswith(" ")):
            if quotes % 2 == 1:
                in_string = not in_string
            continue
        line = raw.strip()
        if not raw.startswith(" ") or not line:
            if line.startswith(END_OF_CALL):
                break
            continue
        m = HANDLE.match(line)
        if m:
            handle = (m.group(1), m.group(2))
            continue
        m = SOURCE_NODES.match(line)
        if m:
            nodes = (_split_list(m.group(1)), _split_list(m.group(2) or ""))
            continue
        m = BUFFER_ALLOC.match(line)
        if m:
            shapes[m.group(1)] = _static_sizes(m.group(2))
            continue
        m = CALL.match(line)
        if m is None:
            continue
        callee = m.group(1)
        if callee.endswith(".run"):
            callee = callee[: -len(".run")]
        if not _is_kernel_call(callee, definitions):
            continue
        name = handle[0] if handle and handle[0] == callee else callee
        site = CallSite(name, f"{handle[0]}:{handle[1]}" if handle and handle[0] == callee else None)
        if nodes:
            site.source_nodes, site.aten_ops = nodes
        out = OUT_BUFFER.search(line) if callee.startswith("extern_kernels.") else None
        if out:
            site.out_shape = shapes.get(out.group(1))
        calls.append(site)
        handle = nodes = None
    return calls


def _is_kernel_call(callee: str, definitions: dict[str, KernelDef]) -> bool:
    if callee in definitions or callee.startswith("extern_kernels."):
        return True
    m = DISPATCHER_OP.match(callee)
    return bool(m) and m.group(1) not in INTERNAL_NAMESPACES


def _static_sizes(text: str) -> list[int] | None:
    parts = _split_list(text)
    return [int(p) for p in parts] if all(p.isdigit() for p in parts) else None


def _split_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]
