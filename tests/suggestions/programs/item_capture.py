import torch


@torch.compile(backend="eager")
def clip(x):
    limit = x.abs().mean().item()
    return x.clamp(-limit, limit) * 2


def explain_target():
    return clip, (torch.randn(6),)


if __name__ == "__main__":
    torch.manual_seed(0)
    for _ in range(2):
        print([round(v, 4) for v in clip(torch.randn(6)).tolist()])
