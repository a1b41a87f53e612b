"""A custom op with its own backward, written as torch.library's docs show (custom_op, register_fake,
register_autograd): a segment-wise scale whose offsets the backward reads into Python, as mixture-of-experts code
does with its token counts per expert."""

import torch


@torch.library.custom_op("shapes::segment_scale", mutates_args=())
def segment_scale(x: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    start = 0
    for i, end in enumerate(offs.tolist()):
        out[start:end] *= i + 1
        start = end
    return out


@segment_scale.register_fake
def _(x, offs):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    ctx.offs = inputs[1]


def _backward(ctx, grad):
    out = grad.clone()
    start = 0
    for i, end in enumerate(ctx.offs.tolist()):
        out[start:end] *= i + 1
        start = end
    return out, None


segment_scale.register_autograd(_backward, setup_context=_setup_context)


class Experts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, offs):
        return segment_scale(self.proj(x), offs).relu()


torch.manual_seed(0)
model = Experts()
step = torch.compile(model, backend="aot_eager")
x, offs = torch.randn(6, 8), torch.tensor([2, 4, 6])
for _ in range(2):
    loss = step(x, offs).sum()  # EXPECT: the backward reads offsets
    loss.backward()
print(f"loss {loss.item():.4f} grad {model.proj.weight.grad.abs().sum().item():.4f}")
