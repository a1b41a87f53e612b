"""Ops Inductor hands to a vendor library on purpose: not fallbacks to warn about.

Inductor does not generate attention, convolution or GEMM kernels by default: it calls cuDNN / oneDNN, cuBLAS /
MKL, or the fused attention kernels (flash, memory-efficient, cuDNN, the CPU flash kernel), because those beat
what it would generate. The generated code shows them as ``torch.ops.aten.X`` calls, exactly like a fallback for
an op Inductor cannot lower; telling the user to "replace" them is harmful advice.
"""

from __future__ import annotations

VENDOR_OPS = frozenset(
    {
        # fused attention (SDPA backends) forward and backward
        "_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_backward",
        "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention_for_cpu_backward",
        "_scaled_dot_product_efficient_attention", "_scaled_dot_product_efficient_attention_backward",
        "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_cudnn_attention_backward",
        "_scaled_dot_product_fused_attention_overrideable", "_scaled_dot_product_fused_attention_overrideable_backward",
        "_flash_attention_forward", "_flash_attention_backward",
        "_efficient_attention_forward", "_efficient_attention_backward",
        # convolution (cuDNN / oneDNN / MIOpen)
        "convolution", "convolution_backward", "_convolution", "cudnn_convolution", "cudnn_convolution_transpose",
        "mkldnn_convolution", "miopen_convolution", "_slow_conv2d_forward", "_slow_conv2d_backward",
        # GEMM families (cuBLAS / cuBLASLt / MKL / oneDNN)
        "mm", "addmm", "bmm", "baddbmm", "mv", "addmv", "_int_mm", "_scaled_mm", "_scaled_grouped_mm",
        "_weight_int8pack_mm", "_weight_int4pack_mm", "_grouped_mm",
        # recurrent, FFT and dense linear algebra kernels (cuDNN RNN, cuFFT/MKL FFT, LAPACK/cuSOLVER)
        "_cudnn_rnn", "_cudnn_rnn_backward", "mkldnn_rnn_layer", "mkldnn_rnn_layer_backward",
        "_fft_r2c", "_fft_c2r", "_fft_c2c",
        "_linalg_svd", "_linalg_eigh", "linalg_eig", "_linalg_det", "_linalg_slogdet", "linalg_cholesky_ex",
        "linalg_lu_factor_ex", "linalg_solve_triangular", "triangular_solve", "_linalg_solve_ex", "linalg_qr",
        "linalg_inv_ex", "cholesky_solve", "_cholesky_solve_helper",
    }
)
VENDOR_NAMESPACES = frozenset({"mkldnn", "onednn", "mkl", "quantized", "_quantized", "cudnn"})


def is_vendor_kernel(op_label: str) -> bool:
    """``aten._scaled_dot_product_efficient_attention`` (overload stripped) -> True."""
    namespace, _, op = op_label.partition(".")
    if namespace in VENDOR_NAMESPACES:
        return True
    return namespace == "aten" and op.split(".")[0] in VENDOR_OPS
