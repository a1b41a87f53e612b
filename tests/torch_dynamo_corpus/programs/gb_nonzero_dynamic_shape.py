# Source: graph-break registry entry GB0036 "Dynamic shape operator" (data-dependent output size, e.g.
# aten.nonzero), hint: torch._dynamo.config.capture_dynamic_output_shape_ops = True. Companion of
# test_error_messages.py :: test_dynamic_shape_operator_no_meta_kernel (which sets that config and gets gb0037).
import torch


@torch.compile(backend="eager")
def positive_mean(x):
    idx = torch.nonzero(x > 0).squeeze(1)
    return x[idx].mean()


torch.manual_seed(0)
x = torch.randn(16)
for _ in range(3):
    m = positive_mean(x)
print("positive mean:", round(m.item(), 4))
