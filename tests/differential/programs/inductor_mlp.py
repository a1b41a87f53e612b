"""An MLP compiled with Inductor, trained a few steps, with a batch size change (automatic dynamic)."""

# differential: kind=script inductor timeout=900
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32), torch.nn.Linear(32, 4))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step, n in enumerate((8, 8, 12, 12, 16)):
    opt.zero_grad()
    loss = cmodel(torch.randn(n, 16)).pow(2).mean()
    loss.backward()
    opt.step()
    print(step, n, round(loss.item(), 3))
