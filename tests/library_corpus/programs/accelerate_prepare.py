"""accelerate: Accelerator(dynamo_backend=...) compiles the model in prepare(); the loop is accelerate's quicktour
(accelerator.backward)."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = Accelerator(cpu=True, dynamo_backend="aot_eager")
model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.Linear(64, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = DataLoader(TensorDataset(torch.randn(200, 16), torch.randint(0, 4, (200,))), batch_size=16)
model, opt, data = accelerator.prepare(model, opt, data)
for epoch in range(2):
    for x, y in data:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
print(f"loss {loss.item():.4f}")
