import torch


@torch.compile(backend="eager")
def pick(a, b):
    if torch.equal(a.sign(), b.sign()):
        return a * 2
    return b


p = torch.tensor([1.0, -2.0])
print(pick(p, torch.tensor([3.0, -1.0])).tolist(), pick(p, torch.tensor([3.0, 1.0])).tolist())
