"""Data augmentation on tensors as torchvision's transforms do it (RandomCrop.get_params draws the offsets with
torch.randint(...).item(), then slices), compiled. torchvision has no CPU build for this torch on PyPI, so the
transform is written as torchvision's v1 RandomCrop and RandomHorizontalFlip write it, with what torch ships."""

import torch

torch.manual_seed(0)


def random_crop(img, size):
    h, w = img.shape[-2:]
    i = torch.randint(0, h - size + 1, size=(1,)).item()  # EXPECT: the crop offset read as a Python int
    j = torch.randint(0, w - size + 1, size=(1,)).item()
    return img[..., i:i + size, j:j + size]


def random_hflip(img, p=0.5):
    if torch.rand(1) < p:
        return img.flip(-1)
    return img


@torch.compile(backend="eager")
def augment(img):
    return random_hflip(random_crop(img, 24))


batch = torch.rand(4, 3, 32, 32)
for _ in range(3):
    out = augment(batch)
print("crops", tuple(out.shape))
