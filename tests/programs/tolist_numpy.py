import torch


@torch.compile(backend="eager")
def to_python(x):
    values = x.tolist()
    arr = (x * 2).numpy()
    return torch.tensor(values) + torch.from_numpy(arr)


print(to_python(torch.arange(4.0)).tolist())
