"""``torch.func`` transforms: ``grad`` and ``vmap`` inside a compiled function, and a compiled function under
``vmap``."""

# differential: kind=script
import torch
from torch.func import grad, vmap

torch.manual_seed(0)


def loss(w, x):
    return (x @ w).tanh().sum()


@torch.compile(backend="aot_eager")
def per_sample_grads(w, xs):
    return vmap(grad(loss), in_dims=(None, 0))(w, xs)


@torch.compile(backend="eager")
def score(x):
    return (x.sin() * x).sum()


w, xs = torch.randn(4, 3), torch.randn(5, 2, 4)
for _ in range(2):
    print(round(per_sample_grads(w, xs).sum().item(), 4))
print([round(v, 4) for v in vmap(score)(torch.randn(3, 4)).tolist()])
