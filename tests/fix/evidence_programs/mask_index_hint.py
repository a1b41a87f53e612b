"""A masked mean written with boolean indexing: `pred[valid]` has a data-dependent size, so Dynamo breaks the graph
(torch's "Dynamic shape operator", whose hint names `capture_dynamic_output_shape_ops`)."""

import torch


def loss_fn(pred, target):
    valid = target >= 0
    return ((pred[valid] - target[valid]) ** 2).mean()


torch.manual_seed(0)
step = torch.compile(loss_fn, backend="eager")
for _ in range(5):
    pred = torch.randn(64)
    target = torch.randn(64)
    loss = step(pred, target)
print(f"{loss.item():.4f}")
