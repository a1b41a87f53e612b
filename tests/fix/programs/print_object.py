"""A print of a plain Python object inside compiled code. The print patch (replay it after the graph) keeps the
output, but torch replays only prints of tensors and constants, so the break stays: the round does not pay."""

import torch


class Settings:
    def __init__(self, scale):
        self.scale = scale

    def __repr__(self):
        return f"Settings(scale={self.scale})"


SETTINGS = Settings(0.5)


@torch.compile(backend="eager")
def step(x):
    y = x * SETTINGS.scale
    print("settings", SETTINGS)
    return y + 1


if __name__ == "__main__":
    torch.manual_seed(0)
    for _ in range(3):
        out = step(torch.randn(3))
        print([round(v, 4) for v in out.tolist()])
