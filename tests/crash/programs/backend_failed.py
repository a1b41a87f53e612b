import torch


def broken_backend(gm, example_inputs):
    raise RuntimeError("my backend cannot handle this graph")


def step(x):
    return torch.sin(x) + 1


compiled = torch.compile(step, backend=broken_backend)
out = compiled(torch.ones(4))
print("done", out.sum().item())
