"""An evaluation pass steered by a forward hook added after the model's first compiled call (the issue's shape): eager
changes many predictions, the compiled model none (Dynamo does not guard on module hooks by default)."""

import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
cmodel = torch.compile(model, backend="eager")
x = torch.randn(128, 16)
with torch.no_grad():
    before = cmodel(x).argmax(1)
    def steer(mod, inp, out):
        return out + torch.linspace(-2, 2, out.shape[-1])
    model[2].register_forward_hook(steer)
    after = cmodel(x).argmax(1)
print("changed predictions:", int((before != after).sum()))
