import torch


def step(x):
    y = x + 1
    print("y is ready")
    return y * 2


compiled = torch.compile(step, backend="eager")
with torch._dynamo.error_on_graph_break(True):
    out = compiled(torch.ones(4))
print("done", out.sum().item())
