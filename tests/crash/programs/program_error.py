import torch


def step(x):
    return torch.relu(x) + 1


compiled = torch.compile(step, backend="eager")
out = compiled(torch.ones(4))
raise ValueError(f"the program's own error after a good compile ({out.sum().item()})")
