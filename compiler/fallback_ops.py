"""Why an op fell back to eager, as far as Inductor's lowering tables say (the analyzer cannot import torch)."""

from __future__ import annotations

from typing import Any

from tdiag.lazy_regex import lazy_regex

# Call sites of ops the wrapper runs through the dispatcher: torch.ops.<namespace>.<op>.<overload>(
FALLBACK_CALL = lazy_regex(r"\btorch\.ops\.([A-Za-z_]\w*)\.([A-Za-z_]\w*)\.([A-Za-z_]\w*)\(")
# Inductor's own runtime helpers, not user ops.
INTERNAL_NAMESPACES = frozenset({"inductor", "prims_debug"})


def fallback_op_names(output_code: str) -> list[str]:
    seen: dict[str, None] = {}
    for ns, op, overload in FALLBACK_CALL.findall(output_code):
        if ns not in INTERNAL_NAMESPACES:
            seen.setdefault(f"{ns}.{op}.{overload}", None)
    return list(seen)


def lowering_status(name: str) -> dict[str, Any]:
    """``explicit``: in Inductor's make_fallback list; ``has_lowering``: Inductor has a lowering for it (so falling
    back means the lowering declined, e.g. for the dtype or device)."""
    import torch
    from torch._inductor import lowering

    ns, op, overload = name.split(".")
    status: dict[str, Any] = {"op": name, "explicit": None, "has_lowering": None}
    try:
        target = getattr(getattr(getattr(torch.ops, ns), op), overload)
    except (AttributeError, RuntimeError):
        return status
    fallbacks = getattr(lowering, "fallbacks", None)
    lowerings = getattr(lowering, "lowerings", None)
    if fallbacks is not None:
        status["explicit"] = target in fallbacks
    if lowerings is not None:
        status["has_lowering"] = target in lowerings or getattr(target, "overloadpacket", None) in lowerings
    return status
