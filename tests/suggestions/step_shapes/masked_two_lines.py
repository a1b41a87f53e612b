"""A loss over the valid tokens only, selected with a boolean mask, as padding-aware losses are often written."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(16, 4)


@torch.compile(backend="aot_eager")
def masked_loss(x, target, mask):
    logits = model(x)
    valid = logits[mask]
    return nn.functional.cross_entropy(valid, target[mask])


for i in range(4):
    x = torch.randn(32, 16)
    target = torch.randint(0, 4, (32,))
    mask = torch.rand(32) > 0.3
    print(f"step {i} loss {masked_loss(x, target, mask).item():.4f}")
