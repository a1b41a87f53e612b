"""FIX: take the input gradient with torch.func.grad, which Dynamo traces, instead of torch.autograd.grad.
Adversarial training with FGSM (Goodfellow et al. 2015), as in the Madry-lab / "fast is better than free"
recipes: each step builds adversarial examples from the input gradient of the loss and trains on them. The
attack is a compiled function so that the extra forward/backward is cheap."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
EPS = 0.15


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def make_digits(n):
    # 10 classes: class k lights up a fixed random template of pixels
    templates = (torch.rand(10, 1, 16, 16, generator=torch.Generator().manual_seed(1)) < 0.25).float()
    y = torch.randint(0, 10, (n,))
    x = (0.7 * templates[y] + 0.3 * torch.rand(n, 1, 16, 16)).clamp(0, 1)
    return x, y


model = SmallNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@torch.compile(backend="aot_eager")
def fgsm(model, x, y, eps):
    grad = torch.func.grad(lambda delta: F.cross_entropy(model(x + delta), y))(torch.zeros_like(x))
    return (x + eps * grad.sign()).clamp(0, 1).detach()


x_train, y_train = make_digits(2048)
for step in range(50):
    idx = torch.randint(0, 2048, (32,))
    x, y = x_train[idx], y_train[idx]
    x_adv = fgsm(model, x, y, EPS)
    loss = F.cross_entropy(model(x_adv), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d}  adversarial loss {loss.item():.4f}")

x_test, y_test = make_digits(512)
with torch.no_grad():
    clean_acc = (model(x_test).argmax(1) == y_test).float().mean().item()
x_adv = fgsm(model, x_test, y_test, EPS)
with torch.no_grad():
    adv_acc = (model(x_adv).argmax(1) == y_test).float().mean().item()
print(f"clean accuracy: {clean_acc:.4f}")
print(f"FGSM accuracy (eps={EPS}): {adv_acc:.4f}")
