import torch


@torch.compile(backend="eager")
def normalise(x):
    scale = x.abs().max().item()
    return x / (scale + 1.0)


def explain_target():
    return normalise, (torch.randn(5),)


if __name__ == "__main__":
    torch.manual_seed(0)
    for _ in range(3):
        print([round(v, 4) for v in normalise(torch.randn(5)).tolist()])
