"""torchmetrics in a compiled evaluation step, as its quickstart shows: the metric accumulates over batches
(metric.update), then computes once (metric.compute)."""

import torch
import torchmetrics

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5)).eval()
val_acc = torchmetrics.classification.MulticlassAccuracy(num_classes=5)


@torch.compile(backend="eager")
def evaluate_batch(x, y):
    preds = model(x).argmax(dim=-1)
    val_acc.update(preds, y)  # EXPECT: the metric's state changes each batch
    return preds


with torch.no_grad():
    for _ in range(4):
        evaluate_batch(torch.randn(8, 16), torch.randint(0, 5, (8,)))
print(f"accuracy {val_acc.compute().item():.4f}")
