"""The shape of issue 20: a module whose forward was compiled, called through a second compiled callable (as
transformers' generate compiles ``model.__call__`` with a static cache), 30 calls with an alternating Python float."""

# differential: kind=script
import torch

torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x, scale):
        return torch.relu(self.linear(x)) * scale


model = Block()
model.forward = torch.compile(model.forward, backend="eager")
call = torch.compile(model.__call__, backend="eager")

x = torch.randn(4, 8)
total = 0.0
for step in range(30):
    scale = 0.5 if step % 2 else 2.0
    total += call(x, scale).sum().item()
print(f"checksum {total:.4f}")
