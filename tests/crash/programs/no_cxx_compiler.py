import torch


def step(x):
    return torch.sin(x) * 2 + 1


compiled = torch.compile(step)
out = compiled(torch.ones(16))
print("done", out.sum().item())
