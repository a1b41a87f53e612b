"""NOT_FIX: model.encoder.compile() (nn.Module.compile on the nn.Sequential encoder): on torch 2.13 it compiles nothing.
Multi-task fine-tuning with one shared encoder and a head per task kept in an nn.ModuleDict, the way multi-task
NLP/tabular codebases (and MT-DNN-style trainers) write it: each batch comes from one task, and forward(x, task)
picks the head with self.heads[task]. Ten tasks are sampled round-robin; the model is compiled."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
TASKS = {  # task name -> number of classes
    "sentiment": 2, "topic": 6, "intent": 8, "language": 5, "toxicity": 2,
    "emotion": 7, "formality": 3, "spam": 2, "stance": 3, "sarcasm": 2,
}
IN_DIM = 48


class MultiTaskModel(nn.Module):
    def __init__(self, hidden=96):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(IN_DIM, hidden), nn.GELU(), nn.LayerNorm(hidden),
                                     nn.Linear(hidden, hidden), nn.GELU())
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in TASKS.items()})

    def forward(self, x, task):
        return self.heads[task](self.encoder(x))


def make_task_data(seed):
    g = torch.Generator().manual_seed(seed)
    data = {}
    for i, (name, n) in enumerate(TASKS.items()):
        w = torch.randn(IN_DIM, n, generator=g)
        x = torch.randn(256, IN_DIM, generator=g)
        data[name] = (x, (x @ w).argmax(1))
    return data


def main():
    model = MultiTaskModel()
    model.encoder.compile(backend="aot_eager")
    compiled = model
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    train = make_task_data(1)
    names = list(TASKS)
    for step in range(200):
        task = names[step % len(names)]
        x, y = train[task]
        idx = torch.randint(0, 256, (32,))
        loss = F.cross_entropy(compiled(x[idx], task), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 49:
            print(f"step {step + 1} loss {loss.item():.4f} ({task})")
    accs = []
    for task in names:
        x, y = train[task]
        accs.append((compiled(x, task).argmax(1) == y).float().mean().item())
    print("train accuracy per task: " + " ".join(f"{a:.3f}" for a in accs))


if __name__ == "__main__":
    main()
