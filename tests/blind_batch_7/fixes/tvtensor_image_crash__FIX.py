"""FIX: the batch is unwrapped to a plain tensor before the compiled model: compiled(batch.as_subclass(torch.Tensor)).
An image pipeline that tags its tensors the way torchvision's tv_tensors do: `Image` is a torch.Tensor subclass
whose __torch_function__ unwraps results to plain tensors (only clone/to keep the type), so that augmentations can
dispatch on the type. The augmented `Image` batch goes straight into the compiled classifier's training step."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class Image(torch.Tensor):
    """A plain tensor with a type tag (like torchvision.tv_tensors.Image)."""

    _KEEP = {torch.Tensor.clone, torch.Tensor.to}

    @classmethod
    def wrap(cls, tensor):
        return tensor.as_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            output = func(*args, **(kwargs or {}))
        if func in cls._KEEP and isinstance(output, torch.Tensor):
            return cls.wrap(output)
        return output


def random_hflip(img: Image, p=0.5) -> Image:
    flip = torch.rand(img.shape[0]) < p
    out = torch.where(flip[:, None, None, None], img.flip(-1), img)
    return Image.wrap(out)


def normalize(img: Image, mean, std) -> Image:
    return Image.wrap((img - mean[:, None, None]) / std[:, None, None])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc(self.body(x))


def main():
    model = Net()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mean, std = torch.tensor([0.5, 0.5, 0.5]), torch.tensor([0.25, 0.25, 0.25])
    raw = torch.rand(64, 3, 16, 16)
    labels = (raw[:, 0].mean((1, 2)) > raw[:, 1].mean((1, 2))).long() * 2 + (raw[:, 2].mean((1, 2)) > 0.5).long()
    for epoch in range(3):
        for i in range(0, 64, 16):
            batch = normalize(random_hflip(Image.wrap(raw[i:i + 16])), mean, std)
            loss = F.cross_entropy(compiled(batch.as_subclass(torch.Tensor)), labels[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} type {type(batch).__name__} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
