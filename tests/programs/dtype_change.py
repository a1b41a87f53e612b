import torch


@torch.compile(backend="eager")
def double(x):
    return x * 2


double(torch.ones(3, dtype=torch.float32))
double(torch.ones(3, dtype=torch.float64))
print("done")
