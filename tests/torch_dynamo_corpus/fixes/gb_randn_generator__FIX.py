# FIX (draw the noise with the generator outside, pass the tensor in)
# Source: graph-break registry entry GB0055 "Failed to convert args/kwargs to proxy" (a torch.Generator passed to
# torch.randn inside the compiled function). Exact torch test name not verified (test_misc.py generator tests).
import torch


@torch.compile(backend="eager")
def noisy(x, noise):
    return x + 0.1 * noise


gen = torch.Generator().manual_seed(123)
x = torch.zeros(4)
for _ in range(3):
    x = noisy(x, torch.randn(x.shape, generator=gen))
print("x:", [round(v, 4) for v in x.tolist()])
