import torch

torch._dynamo.config.error_on_recompile = True


def step(x, scale):
    return x * scale


compiled = torch.compile(step, backend="eager")
compiled(torch.ones(4), 2)
out = compiled(torch.ones(4), 3)
print("done", out.sum().item())
