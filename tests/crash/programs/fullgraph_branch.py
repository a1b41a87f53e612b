import torch


def step(x):
    h = x * 2
    if h.sum() > 0:
        return h + 1
    return h - 1


compiled = torch.compile(step, backend="eager", fullgraph=True)
for _ in range(3):
    out = compiled(torch.ones(4))
print("done", out.sum().item())
