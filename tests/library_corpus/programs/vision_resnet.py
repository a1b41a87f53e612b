"""A vision model trained the way timm's and torchvision's training scripts do (torchvision-free: transformers'
ResNet built from a config), compiled whole; the last batch of the epoch is smaller."""

import torch
from transformers import ResNetConfig, ResNetForImageClassification

torch.manual_seed(0)
config = ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], num_labels=5)
model = ResNetForImageClassification(config)
cmodel = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
images, labels = torch.randn(40, 3, 32, 32), torch.randint(0, 5, (40,))
for epoch in range(2):
    for start in range(0, 40, 16):
        out = cmodel(pixel_values=images[start:start + 16], labels=labels[start:start + 16])
        out.loss.backward()
        opt.step()
        opt.zero_grad()
print(f"loss {out.loss.item():.4f}")
