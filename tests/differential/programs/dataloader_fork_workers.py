"""A compiled model fed by a DataLoader with two forked workers (the workers never compile)."""

# differential: kind=script
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
loader = DataLoader(data, batch_size=16, num_workers=2, multiprocessing_context="fork")
model = torch.compile(torch.nn.Linear(8, 1), backend="aot_eager")
for epoch in range(2):
    total = 0.0
    for x, y in loader:
        total += torch.nn.functional.mse_loss(model(x), y).item()
    print(epoch, round(total, 4))
