# Family of test/dynamo/test_recompiles.py / test_guard_manager.py dict-key guards: a dict argument whose key set
# changes between calls fails the dict-keys guard and recompiles. Exact torch test name not verified.
import torch


@torch.compile(backend="eager")
def total_loss(losses):
    s = 0
    for k in losses:
        s = s + losses[k]
    return s


a = {"ce": torch.tensor(1.0), "l2": torch.tensor(0.5)}
b = {"ce": torch.tensor(1.0), "l2": torch.tensor(0.5), "aux": torch.tensor(0.25)}
c = {"ce": torch.tensor(2.0)}
print("totals:", [total_loss(d).item() for d in (a, b, c, a)])
