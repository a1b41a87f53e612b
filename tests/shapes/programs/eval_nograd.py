"""Train steps then an evaluation under no_grad through the same compiled model."""
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(4):
    loss = compiled(torch.randn(16, 8)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
with torch.no_grad():
    val = compiled(torch.randn(16, 8)).pow(2).mean()
print(f"train {loss.item():.4f} val {val.item():.4f}")
