"""Lightning: a LightningModule compiled as Lightning's "Speed up models by compiling them" guide shows
(`model = torch.compile(model)`, then `trainer.fit(model)`: Lightning compiles `training_step` with it). The step
keeps its loss with `.item()` and prints a progress line (`self.log` inside a compiled step stops Dynamo on torch
2.13), and the last batch of every epoch is smaller than the others."""

import lightning as L
import torch
from _timing import StepTimer, program_arguments
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self, timer):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                       torch.nn.ReLU(), torch.nn.Linear(128, 4))
        self.timer = timer
        self.losses = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.losses.append(loss.item())
        if batch_idx % 8 == 0:
            print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
        return loss

    def on_train_batch_start(self, batch, batch_idx):
        self.timer.start()

    def on_train_batch_end(self, outputs, batch, batch_idx):
        self.timer.stop()

    def on_train_epoch_end(self):
        print(f"epoch {self.current_epoch} mean loss {sum(self.losses) / len(self.losses):.4f}")
        self.losses.clear()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main() -> None:
    args = program_arguments(epochs=3)

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(200, 32), torch.randint(0, 4, (200,)))  # 12 batches of 16, then one of 8
    timer = StepTimer(warmup=14, device=args.device)
    model = torch.compile(Classifier(timer), backend=args.backend)
    trainer = L.Trainer(max_epochs=args.epochs, accelerator="gpu" if args.device.startswith("cuda") else "cpu",
                        devices=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    trainer.fit(model, DataLoader(data, batch_size=16))


if __name__ == "__main__":
    main()
