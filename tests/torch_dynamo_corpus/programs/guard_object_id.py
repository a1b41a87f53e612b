# Family of test/dynamo/test_recompiles.py: an object passed in (here a different nn.Module instance of the same
# class, with non-inlined parameters accessed via a user-defined object) is guarded by identity (ID_MATCH), so a new
# instance recompiles. Exact torch test name not verified.
import torch


class Config:
    def __init__(self, act):
        self.act = act


@torch.compile(backend="eager")
def run(x, cfg):
    return cfg.act(x) + 1


x = torch.linspace(-1, 1, 5)
outs = []
for act in (torch.relu, torch.tanh, torch.sigmoid, torch.relu):
    outs.append(round(run(x, Config(act)).sum().item(), 4))
print("sums:", outs)
