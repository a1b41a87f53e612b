"""FIX: the whole model is compiled once (compiled = torch.compile(model, backend="aot_eager")) instead of block.compile() on every differently sized block.
Regional compilation as the PyTorch recipe shows it ("compile the repeated block, not the whole model"), applied
to a CNN whose stages widen: every residual block is compiled in place with block.compile(); the widths differ from
block to block. A short training run on random images, then an evaluation."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
WIDTHS = [16, 24, 32, 40, 48, 64, 80, 96, 112, 128]


class ResBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.skip = nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return F.relu(h + self.skip(x))


class PyramidNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, WIDTHS[0], 3, padding=1)
        ins = [WIDTHS[0]] + WIDTHS[:-1]
        self.blocks = nn.ModuleList(
            ResBlock(c_in, c_out, 2 if i in (3, 6) else 1) for i, (c_in, c_out) in enumerate(zip(ins, WIDTHS)))
        self.head = nn.Linear(WIDTHS[-1], n_classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean((2, 3)))


def main():
    model = PyramidNet()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = torch.randn(64, 3, 16, 16), torch.randint(0, 10, (64,))
    for step in range(6):
        loss = F.cross_entropy(compiled(x[step % 4 * 16:][:16]), y[step % 4 * 16:][:16])
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        acc = (compiled(x).argmax(1) == y).float().mean().item()
    print(f"train-set accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
