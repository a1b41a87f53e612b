import torch


@torch.compile(backend="eager")
def step(x):
    y = torch.relu(x) * 2
    if y.sum() > 0:
        y = y + 1
    else:
        y = y - 1
    return y * 3


print(step(torch.randn(4, 3)).shape)
