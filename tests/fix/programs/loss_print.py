"""The issue-33 train step that prints its loss: `.item()` and a print of it inside the compiled function. Both
fixes go after `import torch`, so the print one is held back in round 1 and taken in round 2."""

import torch


@torch.compile(backend="eager")
def step(x):
    loss = (x * 2).sum()
    val = loss.item()
    print(f"loss {val:.4f}")
    return loss + 1


if __name__ == "__main__":
    torch.manual_seed(0)
    for i in range(3):
        out = step(torch.randn(3))
        print("out", round(out.item(), 4))
