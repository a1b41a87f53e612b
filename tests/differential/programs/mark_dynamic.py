"""``torch._dynamo.mark_dynamic`` on a batch dimension, then sizes that change, and one call without the mark."""

# differential: kind=script
import torch

torch.manual_seed(0)
model = torch.compile(torch.nn.Linear(8, 2), backend="aot_eager")
for n in (4, 6, 10, 3):
    x = torch.randn(n, 8)
    torch._dynamo.mark_dynamic(x, 0)
    print(n, tuple(model(x).shape))
print(tuple(model(torch.randn(7, 8)).shape))
