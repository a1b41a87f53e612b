"""NOT_FIX: torch.compile(..., dynamic=True).
Point-set classification with variable-size sets packed into one flat batch (the PyG-style layout: a `counts`
vector of points per set). Each layer pools a per-set context with index_add_, broadcasts it back to the points with
`ctx.repeat_interleave(counts, dim=0)`, and mixes it in (a DeepSets / PointNet-style equivariant layer). The model is
compiled for training."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N_CLASSES, DIM = 3, 64


class SetLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.point = nn.Linear(d_in, d_out)
        self.context = nn.Linear(d_in, d_out, bias=False)

    def forward(self, h, counts, set_index):
        pooled = torch.zeros(counts.size(0), h.size(1)).index_add_(0, set_index, h) / counts.unsqueeze(1)
        ctx = self.context(pooled).repeat_interleave(counts, dim=0)
        return F.relu(self.point(h) - ctx)


class SetClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([SetLayer(2, DIM), SetLayer(DIM, DIM), SetLayer(DIM, DIM)])
        self.out = nn.Linear(DIM, N_CLASSES)

    def forward(self, points, counts):
        set_index = torch.arange(counts.size(0)).repeat_interleave(counts)
        h = points
        for layer in self.layers:
            h = layer(h, counts, set_index)
        pooled = torch.zeros(counts.size(0), h.size(1)).index_reduce_(0, set_index, h, "amax", include_self=False)
        return self.out(pooled)


def sample_set(label):
    n = int(torch.randint(20, 60, (1,)))
    t = torch.rand(n) * 6.2832
    if label == 0:  # circle
        pts = torch.stack([t.cos(), t.sin()], 1)
    elif label == 1:  # square outline
        s = torch.rand(n) * 2 - 1
        side = torch.randint(0, 4, (n,))
        pts = torch.stack([torch.where(side < 2, s, (side * 2 - 5).float()), torch.where(side < 2, (side * 2 - 1).float(), s)], 1)
    else:  # line
        pts = torch.stack([t / 3.1416 - 1, 0.5 * (t / 3.1416 - 1)], 1)
    return pts + 0.05 * torch.randn(n, 2), n


def make_batch(bs):
    labels = torch.randint(0, N_CLASSES, (bs,))
    sets = [sample_set(int(l)) for l in labels]
    return torch.cat([s[0] for s in sets]), torch.tensor([s[1] for s in sets]), labels


def main():
    model = SetClassifier()
    compiled = torch.compile(model, backend="aot_eager", dynamic=True)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(60):
        points, counts, labels = make_batch(16)
        loss = F.cross_entropy(compiled(points, counts), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 19:
            print(f"step {step + 1} loss {loss.item():.4f}")
    points, counts, labels = make_batch(128)
    with torch.no_grad():
        acc = (compiled(points, counts).argmax(1) == labels).float().mean().item()
    print(f"eval accuracy {acc:.3f} on {len(points)} points")


if __name__ == "__main__":
    main()
