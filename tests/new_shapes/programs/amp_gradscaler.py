"""Automatic mixed precision as torch.amp's recipe shows: autocast around the compiled forward, GradScaler scaling
the loss, stepping the optimizer and updating its scale."""

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 8))
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 32), torch.randn(16, 8)

for step in range(4):
    opt.zero_grad(set_to_none=True)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        out = compiled(x)
        loss = torch.nn.functional.mse_loss(out.float(), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
print(f"loss {loss.item():.4f}")
