import torch


@torch.compile(backend="eager")
def logged(x):
    y = x * 2
    print("debug: y computed")
    return y + 1


def explain_target():
    return logged, (torch.ones(3),)


if __name__ == "__main__":
    torch.manual_seed(0)
    out = logged(torch.randn(3))
    print([round(v, 4) for v in out.tolist()])
