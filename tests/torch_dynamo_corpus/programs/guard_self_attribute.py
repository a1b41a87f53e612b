# Family of test/dynamo/test_recompiles.py / test_modules.py: a torch.compile'd nn.Module whose plain Python
# attribute (self.temperature) changes between calls; dynamo guards on the attribute's value and recompiles.
# Exact torch test name not verified for this program.
import torch


class Sampler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = 1.0

    def forward(self, logits):
        return torch.softmax(logits / self.temperature, dim=-1)


torch.manual_seed(0)
m = Sampler()
cm = torch.compile(m, backend="eager")
logits = torch.randn(5)
for t in (1.0, 0.9, 0.8, 0.7, 0.6):
    m.temperature = t
    p = cm(logits)
print("p:", [round(v, 4) for v in p.tolist()])
