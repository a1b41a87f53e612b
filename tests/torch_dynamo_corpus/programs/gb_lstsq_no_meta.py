# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_dynamic_shape_operator_no_meta_kernel
# torch's test asserts (capture_dynamic_output_shape_ops=True, fullgraph=True): "Dynamic shape operator (no meta
# kernel)" (gb0037), "Operator `aten.linalg_lstsq.default` does not have a meta kernel that supports dynamic output
# shapes". Here the user turned the config on (as torch's hint for nonzero-style breaks suggests).
import torch

torch._dynamo.config.capture_dynamic_output_shape_ops = True


@torch.compile(backend="eager")
def solve(a, b):
    return torch.linalg.lstsq(a, b).solution.sum()


torch.manual_seed(0)
a, b = torch.rand(10, 10), torch.rand(10, 10)
for _ in range(3):
    s = solve(a, b)
print("solution sum:", round(s.item(), 3))
