# Family of test/dynamo/test_recompiles.py (Python scalars): a Python float argument is specialized by default
# (torch._dynamo.config.specialize_float=True), so each new value fails the guard "L['lr'] == 0.1"-style.
# Exact torch test name not verified for this program.
import torch


@torch.compile(backend="eager")
def sgd_update(w, g, lr):
    return w - lr * g


w = torch.ones(4)
g = torch.full((4,), 0.5)
for step in range(6):
    lr = 0.1 / (step + 1)
    w = sgd_update(w, g, lr)
print("w:", [round(v, 5) for v in w.tolist()])
