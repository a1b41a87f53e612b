"""The expert version: the hand-fixed program (lightning_train_fixed.py) plus, on a GPU, CUDA graphs
(mode="reduce-overhead" on the module's compile, with torch.compiler.cudagraph_mark_step_begin() at each batch
start) and the fused AdamW (fused=True: Lightning calls the optimizer's step itself, with a closure, so the
compiled-optimizer recipe does not fit; on a CPU the fused kernel is slower, so it is used on CUDA only).

Hand-fixed: Lightning: a LightningModule compiled as Lightning's "Speed up models by compiling them" guide shows
(`model = torch.compile(model)`, then `trainer.fit(model)`: Lightning compiles `training_step` with it); hand-fixed:
the step only returns its loss, which is read and printed in `on_train_batch_end` (a hook Lightning runs
uncompiled), the batch dimension is marked dynamic for the smaller last batch, and the step is compiled whole
(fullgraph=True)."""

import lightning as L
import torch
from _timing import StepTimer, cuda_graphs, program_arguments
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
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def on_train_batch_start(self, batch, batch_idx):
        for t in batch:  # 16 rows, then 8 in the last batch of an epoch
            torch._dynamo.mark_dynamic(t, 0)
        torch.compiler.cudagraph_mark_step_begin()
        self.timer.start()

    def on_train_batch_end(self, outputs, batch, batch_idx):
        self.losses.append(outputs["loss"].item())
        if batch_idx % 8 == 0:
            print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
        self.timer.stop()

    def on_train_epoch_end(self):
        print(f"epoch {self.current_epoch} mean loss {sum(self.losses) / len(self.losses):.4f}")
        self.losses.clear()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3, fused=self.device.type == "cuda")


def main() -> None:
    args = program_arguments(epochs=3)

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(200, 32), torch.randint(0, 4, (200,)))  # 12 batches of 16, then one of 8
    timer = StepTimer(warmup=14, device=args.device)
    model = torch.compile(Classifier(timer), backend=args.backend, fullgraph=True,
                          mode=cuda_graphs(args))
    trainer = L.Trainer(max_epochs=args.epochs, accelerator="gpu" if args.device.startswith("cuda") else "cpu",
                        devices=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    trainer.fit(model, DataLoader(data, batch_size=16))


if __name__ == "__main__":
    main()
