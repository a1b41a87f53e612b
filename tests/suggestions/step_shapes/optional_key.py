"""A batch dict whose optional key is present on some batches only."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(8, 8)


@torch.compile(backend="aot_eager")
def forward(batch):
    h = model(batch["x"])
    if "mask" in batch:
        h = h * batch["mask"]
    return h.sum()


for i in range(6):
    batch = {"x": torch.randn(4, 8)}
    if i % 2:
        batch["mask"] = (torch.rand(4, 8) > 0.5).float()
    print(f"step {i} {forward(batch).item():.4f}")
