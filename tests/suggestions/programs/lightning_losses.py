"""Lightning, as its "Speed up models by compiling them" guide compiles a LightningModule (`torch.compile(model)`,
then `trainer.fit`): the step keeps each loss in a list with `.item()` and prints every other batch, and the last
batch of an epoch is smaller (40 samples in batches of 16)."""

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
        self.losses = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.losses.append(loss.item())
        if batch_idx % 2 == 0:
            print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
        return loss

    def on_train_epoch_end(self):
        print(f"epoch {self.current_epoch} mean loss {sum(self.losses) / len(self.losses):.4f}")
        self.losses.clear()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


torch.manual_seed(0)
data = TensorDataset(torch.randn(40, 8), torch.randint(0, 3, (40,)))
model = torch.compile(Classifier(), backend="aot_eager")
trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False)
trainer.fit(model, DataLoader(data, batch_size=16))
