"""NOT_FIX: torch._dynamo.config.capture_scalar_outputs = True (the hint of the break).
Keypoint regression with a random-scale augmentation written with numpy's global RNG (np.random.seed
once, np.random.uniform per batch), as in many data-pipeline snippets. The augmentation and the model
step live in one compiled training function."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)
np.random.seed(0)

model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 8))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


@torch.compile(backend="aot_eager")
def augment_and_loss(points, targets):
    scale = np.random.uniform(0.8, 1.2)
    points = points * scale
    targets = targets * scale
    pred = model(points)
    return F.smooth_l1_loss(pred, targets)


def main():
    points = torch.randn(4096, 32)
    targets = points[:, :8] * 0.5 + points[:, 8:16].tanh()
    for epoch in range(6):
        total = 0.0
        for i in range(0, len(points), 128):
            loss = augment_and_loss(points[i:i + 128], targets[i:i + 128])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / 32:.4f}")
    print(f"numpy stream position check: {np.random.uniform():.6f}")


if __name__ == "__main__":
    main()
