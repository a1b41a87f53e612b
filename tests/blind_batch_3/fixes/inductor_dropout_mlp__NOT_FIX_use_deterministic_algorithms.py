"""An MLP regressor with dropout, trained with the model compiled by the default Inductor backend.
The run is seeded so that the loss curve can be compared across runs and machines."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.use_deterministic_algorithms(True)

x = torch.randn(512, 16)
w_true = torch.randn(16, 1)
y = torch.sin(x @ w_true) + 0.05 * torch.randn(512, 1)

model = nn.Sequential(
    nn.Linear(16, 64), nn.ReLU(), nn.Dropout(p=0.2),
    nn.Linear(64, 64), nn.ReLU(), nn.Dropout(p=0.2),
    nn.Linear(64, 1),
)
model = torch.compile(model)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(30):
    model.train()
    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0 or epoch == 29:
        print(f"epoch {epoch:2d}  train loss {loss.item():.6f}")

model.eval()
with torch.no_grad():
    print(f"eval loss {F.mse_loss(model(x), y).item():.6f}")
