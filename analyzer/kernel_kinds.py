"""What kind of kernel a call site is, and which library or code generator runs it.

Generated kernels: Triton names encode the kind (``triton_poi/red/per/tem/for_``); C++ kernels do not, so a
reduction is recognised by its accumulator (``tmp_acc``) or a Welford helper in the source. Extern calls
(``extern_kernels.mm`` ...) run a vendor library chosen by the device; ``torch.ops.X`` calls are fallbacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdiag.lazy_regex import lazy_regex

if TYPE_CHECKING:  # annotations only: rules that ask is_gemm() need no output-code parser
    from tdiag.analyzer.output_code import CallSite, KernelDef

TRITON_KINDS = {
    "triton_poi": "pointwise",
    "triton_red": "reduction",
    "triton_per": "persistent_reduction",
    "triton_tem": "template",
    "triton_for": "foreach",
    "triton_mix": "reduction",
}
CONVOLUTIONS = ("convolution", "_convolution")
LIBRARY_BY_DEVICE = {
    "cuda": {"gemm": "cublas", "conv": "cudnn"},
    "xpu": {"gemm": "onednn", "conv": "onednn"},
    "cpu": {"gemm": "mkl", "conv": "onednn"},
}
ONEDNN_NAMESPACES = ("mkldnn", "onednn", "mkl")
CPP_REDUCTION = lazy_regex(r"\btmp_acc\d|welford|\bargmax\b|\bargmin\b")
CPP_TEMPLATE = lazy_regex(r"micro_gemm|cpp_template|kernel_micro")
GEMM_NAMES = frozenset({"mm", "addmm", "bmm", "baddbmm", "_mm_plus_mm", "_int_mm", "_scaled_mm", "addmv", "mv"})


def classify(call: CallSite, definition: KernelDef | None, device: str) -> tuple[str, str]:
    """(kind, backend) for one call site."""
    name = call.name
    if name.startswith("extern_kernels."):
        op = name.split(".", 1)[1]
        libs = LIBRARY_BY_DEVICE.get(device, LIBRARY_BY_DEVICE["cpu"])
        return "extern", libs["conv"] if op in CONVOLUTIONS else libs["gemm"]
    if name.startswith("torch.ops."):
        namespace = name.split(".")[2]
        if namespace in ONEDNN_NAMESPACES:
            return "extern", "onednn"
        return "fallback", "aten" if namespace in ("aten", "prims") else "custom_op"
    if definition is not None and definition.compiler == "triton" or name.startswith("triton_"):
        prefix = "_".join(name.split("_")[:2])
        return TRITON_KINDS.get(prefix, "pointwise"), "triton"
    source = definition.source if definition is not None else ""
    backend = "cpp" if definition is None or definition.compiler.startswith("cpp") else definition.compiler
    if CPP_TEMPLATE.search(source):
        return "template", backend
    if CPP_REDUCTION.search(source):
        return "reduction", backend
    return "pointwise", backend


def is_gemm(name: str) -> bool:
    return name.startswith("extern_kernels.") and name.split(".", 1)[1] in GEMM_NAMES
