"""Train a tiny ViT (convolution patch embedding, SDPA attention) with Inductor: attention and convolution are
vendor kernels Inductor chooses on purpose, nothing to warn about."""

import torch
from transformers import ViTConfig, ViTForImageClassification

torch.manual_seed(0)
config = ViTConfig(image_size=16, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=1,
                   num_attention_heads=2, intermediate_size=64, num_labels=4, attn_implementation="sdpa")
model = ViTForImageClassification(config)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.01)

for _ in range(2):
    images = torch.randn(2, 3, 16, 16)
    labels = torch.randint(0, 4, (2,))
    loss = compiled(pixel_values=images, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
print("done")
