"""FIX (alternative): torch._dynamo.config.capture_dynamic_output_shape_ops = True (torch's hint for the boolean-mask index).
Multi-task regression with missing labels, the way molecular-property (Tox21/QM9-style) code handles them: the
target matrix has NaN where an assay was not measured, and the loss keeps the measured entries with a boolean mask,
`F.mse_loss(pred[mask], target[mask])`, inside the compiled loss function (backward and Adam run outside it)."""
import torch
import torch.nn.functional as F
from torch import nn
torch._dynamo.config.capture_dynamic_output_shape_ops = True

torch.manual_seed(0)
N, D_IN, N_TASKS = 4096, 32, 8


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(D_IN, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU())
        self.heads = nn.Linear(128, N_TASKS)

    def forward(self, x):
        return self.heads(self.trunk(x))


model = MultiTaskNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


@torch.compile(backend="aot_eager")
def compute_loss(x, target):
    pred = model(x)
    mask = ~torch.isnan(target)
    return F.mse_loss(pred[mask], target[mask])


def main():
    x = torch.randn(N, D_IN)
    w = torch.randn(D_IN, N_TASKS) / D_IN ** 0.5
    y = torch.tanh(x @ w) + 0.05 * torch.randn(N, N_TASKS)
    y[torch.rand(N, N_TASKS) < 0.4] = float("nan")  # 40% of the labels missing
    for epoch in range(4):
        for i in range(0, 3584, 128):
            loss = compute_loss(x[i:i + 128], y[i:i + 128])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} last batch loss {loss.item():.5f}")
    with torch.no_grad():
        pred, tgt = model(x[3584:]), y[3584:]
        m = ~torch.isnan(tgt)
        per_task = [F.mse_loss(pred[:, t][m[:, t]], tgt[:, t][m[:, t]]).item() for t in range(N_TASKS)]
    print("held-out mse per task " + " ".join(f"{v:.4f}" for v in per_task))


if __name__ == "__main__":
    main()
