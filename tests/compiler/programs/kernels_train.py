"""One compiled training step covering every kernel kind Inductor makes on CPU.

Linear+ReLU (extern GEMM + fused pointwise), softmax (fused reduction), torch.cdist (explicit aten fallback),
a custom op with no Inductor lowering (implicit fallback), and a backward pass.
"""

import torch


@torch.library.custom_op("tdiagtest::scale_noise", mutates_args=())
def scale_noise(x: torch.Tensor) -> torch.Tensor:
    return x * 1.5


@scale_noise.register_fake
def _(x):
    return torch.empty_like(x)


def _scale_noise_backward(ctx, grad):
    return grad * 1.5


scale_noise.register_autograd(_scale_noise_backward)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.centers = torch.nn.Parameter(torch.randn(4, 16))

    def forward(self, x):
        h = torch.relu(self.lin(x))  # LINEAR_RELU
        p = torch.softmax(h, dim=-1)  # SOFTMAX
        d = torch.cdist(p, self.centers)  # CDIST
        n = scale_noise(d)  # CUSTOM_OP
        return n.sum()


torch.manual_seed(0)
model = Model()
compiled = torch.compile(model)
x = torch.randn(8, 16)
loss = compiled(x)
loss.backward()  # BACKWARD
print(f"loss {loss.item():.4f}")
