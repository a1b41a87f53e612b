"""A timm ResNet-18 (random init) trained for a few steps with torch.compile (Inductor) on CUDA, channels-last bf16."""

import timm
import torch

torch.manual_seed(0)
model = timm.create_model("resnet18", pretrained=False, num_classes=10).cuda().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
compiled = torch.compile(model)

for _step in range(8):
    x = torch.randn(16, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (16,), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.cross_entropy(compiled(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(f"final loss {loss.item():.3f}")
