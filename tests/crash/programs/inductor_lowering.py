import torch

torch._inductor.config.implicit_fallbacks = False


@torch.library.custom_op("tdiag_crash::scale", mutates_args=())
def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@scale.register_fake
def _(x):
    return torch.empty_like(x)


def step(x):
    y = torch.sin(x)
    return scale(y) + 1


compiled = torch.compile(step)
out = compiled(torch.randn(4, 8))
print("done", out.sum().item())
