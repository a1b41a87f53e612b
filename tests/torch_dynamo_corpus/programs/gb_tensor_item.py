# Source: graph-break registry entry GB0124 "Unsupported Tensor.item() call with capture_scalar_outputs=False"
# (torch/_dynamo/graph_break_registry.json); the .item() family of tests in test/dynamo/test_misc.py and
# test_error_messages.py (torch asserts the gb_type text and hint "Set torch._dynamo.config.capture_scalar_outputs
# = True"). Exact torch test name not verified for this program.
import torch


@torch.compile(backend="eager")
def scaled(x):
    m = x.max().item()
    return x / m


x = torch.arange(1, 5, dtype=torch.float32)
for _ in range(3):
    y = scaled(x)
print("scaled:", [round(v, 4) for v in y.tolist()])
