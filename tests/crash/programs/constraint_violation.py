import torch


def step(x):
    if x.shape[0] == 8:
        return x * 2
    return x + 1


compiled = torch.compile(step, backend="eager")
x = torch.ones(8)
torch._dynamo.mark_dynamic(x, 0)
out = compiled(x)
print("done", out.sum().item())
