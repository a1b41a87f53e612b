"""NOT_FIX: torch.compile(..., dynamic=True)."""
"""Focal loss with a curriculum on gamma: each epoch builds functools.partial(focal_loss, gamma=...) and passes it
to the compiled loss function."""
import functools

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def focal_loss(logits, target, gamma=2.0, alpha=0.25):
    ce = F.cross_entropy(logits, target, reduction="none")
    p_t = torch.exp(-ce)
    return (alpha * (1 - p_t) ** gamma * ce).mean()


model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.2)


@torch.compile(backend="aot_eager", dynamic=True)
def compute_loss(x, y, criterion):
    return criterion(model(x), y)


X = torch.randn(1024, 16)
Y = (X[:, :4].argmax(dim=1) + (X[:, 4] > 1.2).long()) % 4

for epoch in range(12):
    gamma = 0.5 + 0.25 * epoch  # anneal from 0.5 to 3.25
    criterion = functools.partial(focal_loss, gamma=gamma)
    for i in range(0, 1024, 128):
        loss = compute_loss(X[i:i + 128], Y[i:i + 128], criterion)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 3 == 2:
        acc = (model(X).argmax(1) == Y).float().mean()
        print(f"epoch {epoch}: gamma {gamma:.2f} loss {loss.item():.4f} acc {acc.item():.3f}")
