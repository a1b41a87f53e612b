import torch

torch._dynamo.config.capture_scalar_outputs = True


def step(x):
    n = x.sum().item()
    if n > 2:
        return x * 2
    return x


compiled = torch.compile(step, backend="eager", fullgraph=True)
out = compiled(torch.ones(4))
print("done", out.sum().item())
