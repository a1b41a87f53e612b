"""A training loop with a validation pass every epoch under torch.no_grad() and model.eval(), as PyTorch's
'Training with PyTorch' tutorial writes it, the model compiled once."""

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(12, 24), torch.nn.Dropout(0.1), torch.nn.Linear(24, 3))
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(16, 12), torch.randint(0, 3, (16,))

for epoch in range(2):
    model.train()
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(compiled(x), y)
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        val_loss = torch.nn.functional.cross_entropy(compiled(x), y)  # EXPECT: evaluation under no_grad
    print(f"epoch {epoch} train {loss.item():.4f} val {val_loss.item():.4f}")
