import torch


def step(a, b):
    return a @ b


compiled = torch.compile(step, backend="eager")
out = compiled(torch.ones(3, 4), torch.ones(5, 6))
print("done", out.sum().item())
