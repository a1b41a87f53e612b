import torch

seen = []


def record(grad):
    seen.append(grad.sum())


@torch.compile(backend="eager")
def two_heads(x, w):
    z = torch.tanh(x @ w)
    z.register_hook(record)
    return z.sum(), z.mean()


torch.manual_seed(1)
w = torch.randn(3, 3, requires_grad=True)
for _ in range(2):
    total, avg = two_heads(torch.randn(2, 3), w)
    (total + avg).backward()
print("hook grads:", [round(float(g), 4) for g in seen])
