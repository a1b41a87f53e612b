"""Lightning's most common step: `self.log(...)` of the loss and a metric inside `training_step`, the LightningModule compiled as
Lightning's "Speed up models by compiling them" guide shows. On torch 2.13 with lightning 2.6 Dynamo stops the
program there (an internal error in `inspect.getfullargspec` on the bound `training_step`)."""

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        pred = self.net(x)
        loss = torch.nn.functional.mse_loss(pred, y)
        mae = (pred - y).abs().mean()
        self.log("train_mae", mae)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 16), torch.randn(256, 1))
model = torch.compile(Regressor(), backend="aot_eager")
trainer = L.Trainer(max_steps=24, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(model, DataLoader(data, batch_size=8))
print(f"loss {trainer.callback_metrics['train_loss']:.4f} mae {trainer.callback_metrics['train_mae']:.4f}")
