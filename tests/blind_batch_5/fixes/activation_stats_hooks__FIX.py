"""FIX: the hook keeps the statistic as a detached tensor; .item() happens when the loop prints it.
Training with activation monitoring, as debugging guides suggest for spotting dead units: a forward hook on every
ReLU records the fraction of zero activations (a Python float via .item()) into a dict that the training loop
prints. The hooks are registered, then the model is compiled and trained."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
dead_fraction = {}


def make_hook(name):
    def hook(module, inputs, output):
        dead_fraction[name] = (output == 0).float().mean().detach()
    return hook


def build_model():
    layers = []
    dims = [32, 128, 128, 128, 64]
    for i in range(len(dims) - 1):
        layers += [nn.Linear(dims[i], dims[i + 1]), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(dims[-1], 1))


def main():
    model = build_model()
    for name, module in model.named_modules():
        if isinstance(module, nn.ReLU):
            module.register_forward_hook(make_hook(f"relu{name}"))
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    w = torch.randn(32, 1)
    for step in range(150):
        x = torch.randn(128, 32)
        y = torch.tanh(x @ w) + 0.1 * torch.randn(128, 1)
        loss = F.mse_loss(compiled(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == 149:
            stats = " ".join(f"{k}={v.item():.3f}" for k, v in dead_fraction.items())
            print(f"step {step:3d} loss {loss.item():.4f} dead {stats}")


if __name__ == "__main__":
    main()
