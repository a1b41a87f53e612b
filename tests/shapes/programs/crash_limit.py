"""A compiled function that breaks and then crashes inside torch.compile."""
import torch


@torch.compile(backend="aot_eager", fullgraph=True)
def f(x):
    y = x * 2
    print("inside")
    return y + 1


print(f(torch.randn(3)).shape)
