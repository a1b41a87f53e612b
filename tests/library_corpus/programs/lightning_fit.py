"""Lightning: Trainer.fit of a compiled LightningModule (Lightning's "Speed up models by compiling them" guide:
`model = torch.compile(model)` then `trainer.fit(model, ...)`); the step keeps its loss as a Python float.
(`self.log(...)` inside the compiled training_step stops Dynamo on torch 2.13 with lightning 2.6: an internal
error in `inspect.getfullargspec`, so the loss is kept by hand.)"""

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        self.last_loss = float("nan")

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.last_loss = loss.item()
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 16), torch.randn(256, 1))
model = Regressor()
model = torch.compile(model, backend="aot_eager")
trainer = L.Trainer(max_steps=24, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(model, DataLoader(data, batch_size=8))
print(f"loss {model.last_loss:.4f}")
