import torch


def step(x):
    return torch.relu(x) * 2


compiled = torch.compile(step, backend="eager")
compiled(torch.ones(4))
torch.compiler.set_stance("fail_on_recompile")
out = compiled(torch.ones(4, 3))
print("done", out.sum().item())
