"""A small classifier with dropout, compiled with Inductor; forward reads a statistic with .item() between its
two dropouts (a graph break). Inductor draws its dropout masks with its own generator, so the compiled run prints
other losses than eager (tests/fix/test_random_stream.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, 4)

    def forward(self, x):
        h = F.dropout(F.relu(self.fc1(x)), 0.3, self.training)
        scale = h.abs().mean().item()
        h = F.dropout(F.relu(self.fc2(h / (1.0 + scale))), 0.3, self.training)
        return self.fc3(h)


model = torch.compile(Net())
LR = 0.05
opt = torch.optim.SGD(model.parameters(), lr=LR)
x = torch.randn(256, 16)
y = (x[:, :4].argmax(1))
for epoch in range(3):
    for i in range(0, 256, 32):
        loss = F.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
