"""A program that changes ``torch._dynamo.config`` between calls: ``capture_scalar_outputs`` on then off (the
``.item()`` break disappears, then returns), a ``config.patch`` context, and a lower recompile limit."""

# differential: kind=script
import torch
import torch._dynamo


def body(x):
    s = x.sum().item()
    return x * s


f = torch.compile(body, backend="eager")
print(round(f(torch.ones(3)).sum().item(), 4))
torch._dynamo.config.capture_scalar_outputs = True
g = torch.compile(lambda x: body(x) + 1, backend="eager")
print(round(g(torch.ones(3)).sum().item(), 4))
torch._dynamo.config.capture_scalar_outputs = False
with torch._dynamo.config.patch(recompile_limit=2):
    h = torch.compile(lambda x, k: x * k, backend="eager")
    print([h(torch.ones(1), k).item() for k in (1, 2, 3, 4)])
print(round(f(torch.ones(4)).sum().item(), 4))
