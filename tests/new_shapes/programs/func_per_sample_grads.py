"""Per-sample gradients with torch.func as its tutorial shows (functional_call, grad, vmap), compiled."""

import torch
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_of_one(params, x, y):
    logits = functional_call(model, params, (x.unsqueeze(0),))
    return torch.nn.functional.cross_entropy(logits, y.unsqueeze(0))


per_sample_grads = torch.compile(vmap(grad(loss_of_one), in_dims=(None, 0, 0)), backend="aot_eager")
x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
for _ in range(3):
    grads = per_sample_grads(params, x, y)
print({k: tuple(g.shape) for k, g in grads.items()})
