"""A compiled training step called from nested loops, the shape of issue 64's ViT: EPOCHS epochs of 8 calls (the
last batch of each epoch 104 of 128 rows: a recompile in the first epoch), each epoch ending with an eager
evaluation and a print. The program times its own steps (time.perf_counter around the compiled call and the
optimizer) and prints their median over every epoch but the first (its compiles).

argv[1]: epochs (default 4); argv[2]: the evaluation's repeats (default 6: several steps' worth of eager work at
each epoch's end); argv[3]: a file for each step's own time (optional)."""

import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)  # a shared 2-core machine: one thread keeps the steps' own times steady
EPOCHS = int(sys.argv[1]) if len(sys.argv) > 1 else 4
EVAL_REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
DIM = 192

model = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM), nn.GELU(), nn.Linear(DIM, 10))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
images = torch.randn(1000, DIM)
labels = (images[:, :8].mean(1) * 20).long().clamp(0, 9)
held_out = torch.randn(512, DIM)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss.detach()


def evaluate():
    with torch.no_grad():
        for _ in range(EVAL_REPEATS):
            out = model(held_out)
    return float(out.softmax(1).max(1).values.mean())


times = []
for epoch in range(EPOCHS):
    for i in range(0, 1000, 128):  # 8 calls: 7 of 128 rows, the last of 104
        x, y = images[i:i + 128], labels[i:i + 128]
        t0 = time.perf_counter()
        loss = train_step(x, y)
        opt.step()
        opt.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - t0)
    print(f"epoch {epoch} loss {loss.item():.4f} confidence {evaluate():.3f}")
print(f"step ms {statistics.median(times[8:]) * 1e3:.4f}")
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as f:
        f.write("\n".join(repr(t) for t in times))
