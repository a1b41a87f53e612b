"""A multi-task model: one shared trunk, one head per task, the task named by a string per batch."""
import torch
import torch.nn as nn

TASKS = [f"task{i}" for i in range(10)]


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.heads = nn.ModuleDict({t: nn.Linear(32, 2) for t in TASKS})

    def forward(self, x, task):
        return self.heads[task](self.trunk(x))


torch.manual_seed(0)
model = torch.compile(MultiTask(), backend="aot_eager")
for step in range(20):
    task = TASKS[step % len(TASKS)]
    out = model(torch.randn(8, 16), task)
    print(f"step {step} {task} {out.sum().item():.4f}")
