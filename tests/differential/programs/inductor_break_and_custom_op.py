"""Inductor with a graph break, a custom op Inductor cannot lower (a fallback) and ``mode="reduce-overhead"`` on the
CPU (no CUDA graphs there), the issue-20 nested shape compiled with Inductor."""

# differential: kind=script inductor timeout=900
import torch

torch.manual_seed(0)


@torch.library.custom_op("differential::blend", mutates_args=())
def blend(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * 0.25 + y * 0.75


@blend.register_fake
def _(x, y):
    return torch.empty_like(x)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x, scale):
        h = self.linear(x)
        if h.mean() > 0:
            h = h.relu()
        return blend(h, x) * scale


model = Block()
model.forward = torch.compile(model.forward)
call = torch.compile(model.__call__, mode="reduce-overhead")
x = torch.randn(4, 8)
with torch.no_grad():
    for i in range(6):
        print(i, round(call(x, 0.5 if i % 2 else 2.0).sum().item(), 3))
