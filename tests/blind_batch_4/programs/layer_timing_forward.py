"""ResNet-style image classifier that records how long each stage of the forward pass takes, so the training
script can report where the time goes. Timings are accumulated on the model with time.perf_counter()."""
import time
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.short(x))


class TimedResNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.stages = nn.ModuleDict({
            "stage1": BasicBlock(16, 16, 1),
            "stage2": BasicBlock(16, 32, 2),
            "stage3": BasicBlock(32, 64, 2),
        })
        self.fc = nn.Linear(64, num_classes)
        self.stage_time = defaultdict(float)

    def forward(self, x):
        x = self.stem(x)
        for name, stage in self.stages.items():
            t0 = time.perf_counter()
            x = stage(x)
            self.stage_time[name] += time.perf_counter() - t0
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def make_batch(n):
    # class = which colour channel carries a bright square
    y = torch.randint(0, 4, (n,))
    x = 0.5 * torch.randn(n, 3, 16, 16)
    for c in range(3):
        x[y == c, c, 4:12, 4:12] += 1.0
    return x, y


model = TimedResNet()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(30):
    x, y = make_batch(16)
    loss = F.cross_entropy(compiled(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}")

total = sum(model.stage_time.values())
print(f"stages timed: {sorted(model.stage_time)}; all measured: {all(v > 0 for v in model.stage_time.values())}")
print(f"stage time recorded: {'yes' if total > 0 else 'no'}")
