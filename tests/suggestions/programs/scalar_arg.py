import torch


@torch.compile(backend="eager")
def scale(x, k):
    return x * k + 1


if __name__ == "__main__":
    for k in (2, 3, 5):
        print(scale(torch.arange(3.0), k).tolist())
