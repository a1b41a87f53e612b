"""A torchmetrics metric updated inside a compiled eval step."""
import torch
import torchmetrics

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
val_metric = torchmetrics.MeanSquaredError()


@torch.compile(backend="aot_eager")
def eval_step(x, y):
    pred = model(x)
    val_metric.update(pred, y)
    return pred


with torch.no_grad():
    for step in range(6):
        eval_step(torch.randn(4, 8), torch.randn(4, 1))
print(f"mse {val_metric.compute().item():.4f}")
