"""AOTAutograd's forward/backward split from its readable graphs: saved tensors, their shapes and bytes, sizes."""

from __future__ import annotations

import math
import re

from tdiag.analyzer.model import AotInfo

from tdiag.lazy_regex import lazy_regex

SAVED = lazy_regex(r"^\s*(\w+),\s*# SavedForBackwardsAOTOutput\(idx=(\d+)\)", re.M)
OP_NODE = lazy_regex(r"^\s+\w+(?:: \"[^\"]*\")? = torch\.ops\.", re.M)
SIGNATURE_ARG = lazy_regex(r"(\w+): \"([^\"]+)\"")
TENSOR_TYPE = lazy_regex(r"^([a-z]+\d*)\[([^\]]*)\]")
DTYPE_BYTES = {
    "f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1, "u8": 1, "b8": 1,
    "c64": 8, "c128": 16, "c32": 4, "u16": 2, "u32": 4, "u64": 8,
}


def aot_info(forward: str | None, backward: str | None, joint: str | None) -> AotInfo:
    info = AotInfo(has_backward=backward is not None)
    if forward:
        saved = SAVED.findall(forward)
        info.saved_tensors = len(saved)
        info.forward_nodes = len(OP_NODE.findall(forward))
        if backward:
            types = _signature_types(backward)
            names = [name for name, _ in saved]
            info.saved_shapes = [f"{name}: {types[name]}" for name in names if name in types]
            sizes = [_bytes(types.get(name)) for name in names]
            info.saved_bytes = sum(sizes) if sizes and all(s is not None for s in sizes) else None
    if backward:
        info.backward_nodes = len(OP_NODE.findall(backward))
    if joint:
        info.joint_nodes = len(OP_NODE.findall(joint))
    return info


def _signature_types(graph: str) -> dict[str, str]:
    from tdiag.analyzer.post_grad import signature

    return dict(SIGNATURE_ARG.findall(signature(graph)))


def _bytes(type_text: str | None) -> int | None:
    """``f32[8, 16][16, 1]cpu`` -> 512; None for symbolic sizes or unknown dtypes."""
    if not type_text:
        return None
    m = TENSOR_TYPE.match(type_text)
    if m is None or m.group(1) not in DTYPE_BYTES:
        return None
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    if not all(d.isdigit() for d in dims):
        return None
    return math.prod(int(d) for d in dims) * DTYPE_BYTES[m.group(1)]
