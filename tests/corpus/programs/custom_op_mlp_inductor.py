"""An einops token-mixing MLP that calls a user-registered custom op (torch.library), compiled with Inductor: the
custom op is opaque to Inductor and runs as a fallback between generated kernels."""

import torch
from einops import rearrange
from torch import nn


@torch.library.custom_op("corpus::scaled_swish", mutates_args=())
def scaled_swish(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x * torch.sigmoid(x) * scale


@scaled_swish.register_fake
def _(x, scale):
    return torch.empty_like(x)


class TokenMixer(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mix = nn.Linear(tokens, tokens)

    def forward(self, x):
        y = rearrange(self.norm(x), "b n d -> b d n")
        y = scaled_swish(self.mix(y), 0.5)  # EXPECT: custom op
        return x + rearrange(y, "b d n -> b n d")


torch.manual_seed(0)
model = torch.compile(TokenMixer(8, 16).eval())
with torch.no_grad():
    for _ in range(2):
        out = model(torch.randn(2, 8, 16))
print(tuple(out.shape))
