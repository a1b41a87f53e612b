"""NOT_FIX: the parameters are passed as a list (params = list(model.parameters())), error_if_nonfinite=True kept.
The optimizer step compiled as in PyTorch's "Compiling the optimizer" tutorial, with gradient clipping folded in:
clip_grad_norm_(model.parameters(), max_norm, error_if_nonfinite=True) so that a NaN/inf gradient stops training
at once instead of corrupting AdamW's state. Forward and backward run eagerly; clip + step are one compiled function."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
MAX_NORM = 0.25

model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 1))
params = list(model.parameters())
optimizer = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)


@torch.compile(backend="aot_eager")
def clip_and_step():
    grad_norm = torch.nn.utils.clip_grad_norm_(params, MAX_NORM, error_if_nonfinite=True)
    optimizer.step()
    return grad_norm


def main():
    w_true = torch.randn(32, 1)
    x = torch.randn(2048, 32)
    y = torch.sin(x @ w_true) + 0.1 * torch.randn(2048, 1)
    for epoch in range(4):
        norms = []
        for i in range(0, 2048, 128):
            loss = F.mse_loss(model(x[i:i + 128]), y[i:i + 128])
            loss.backward()
            norms.append(clip_and_step())
            optimizer.zero_grad(set_to_none=True)
        norms = torch.stack(norms)
        print(f"epoch {epoch} loss {loss.item():.4f} grad norm mean {norms.mean().item():.4f} "
              f"clipped {(norms > MAX_NORM).sum().item()}/{len(norms)}")


if __name__ == "__main__":
    main()
