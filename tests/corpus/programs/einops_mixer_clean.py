"""An MLP-Mixer written with einops layers inside a compiled nn.Sequential; fixed shapes: nothing to flag."""

import torch
from einops.layers.torch import Rearrange, Reduce
from torch import nn


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.token_mix = nn.Sequential(nn.LayerNorm(dim), Rearrange("b n d -> b d n"), nn.Linear(tokens, tokens),
                                       nn.GELU(), Rearrange("b d n -> b n d"))
        self.channel_mix = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        x = x + self.token_mix(x)
        return x + self.channel_mix(x)


torch.manual_seed(0)
mixer = nn.Sequential(
    Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4),
    nn.Linear(48, 32),
    MixerBlock(16, 32),
    MixerBlock(16, 32),
    Reduce("b n d -> b d", "mean"),
    nn.Linear(32, 10),
)
compiled = torch.compile(mixer, backend="aot_eager")
with torch.no_grad():
    for _ in range(3):
        logits = compiled(torch.randn(2, 3, 16, 16))
print(tuple(logits.shape))
