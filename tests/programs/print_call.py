import torch


@torch.compile(backend="eager")
def logged(x):
    y = x * 2
    print("y computed")
    return y + 1


print(logged(torch.ones(3)).tolist())
