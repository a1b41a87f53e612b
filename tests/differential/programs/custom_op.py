"""A custom op (``torch.library.custom_op`` with a fake implementation) called from compiled code, forward and
backward, with ``fullgraph=True``."""

# differential: kind=script
import torch

torch.manual_seed(0)


@torch.library.custom_op("differential::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x.clone()) * scale


@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * ctx.scale * (1 - torch.tanh(x) ** 2), None


def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
    ctx.scale = inputs[1]


scaled_tanh.register_autograd(backward, setup_context=setup_context)


@torch.compile(backend="aot_eager", fullgraph=True)
def f(x):
    return scaled_tanh(x * 2, 0.5).sum()


w = torch.randn(6, requires_grad=True)
for i in range(3):
    loss = f(w)
    loss.backward()
    print(i, round(loss.item(), 4), round(w.grad.sum().item(), 4))
