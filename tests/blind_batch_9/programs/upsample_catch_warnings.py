"""Super-resolution net whose forward silences the F.upsample deprecation warning with warnings.catch_warnings()."""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SRNet(nn.Module):
    def __init__(self, ch=32):
        super().__init__()
        self.head = nn.Conv2d(3, ch, 3, padding=1)
        self.body = nn.Sequential(*[nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU()) for _ in range(3)])
        self.tail = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, lr):
        feat = self.body(self.head(lr))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            feat = F.upsample(feat, scale_factor=2, mode="bilinear", align_corners=False)
            base = F.upsample(lr, scale_factor=2, mode="bilinear", align_corners=False)
        return base + self.tail(feat)


model = SRNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
cmodel = torch.compile(model, backend="aot_eager")

hr_all = torch.rand(32, 3, 32, 32)
for step in range(40):
    hr = hr_all[(step % 4) * 8:(step % 4) * 8 + 8]
    lr = F.avg_pool2d(hr, 2)
    loss = F.l1_loss(cmodel(lr), hr)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1}: l1 {loss.item():.5f}")
with torch.no_grad():
    psnr = -10 * torch.log10(F.mse_loss(cmodel(F.avg_pool2d(hr_all[:8], 2)), hr_all[:8]))
print(f"psnr {psnr.item():.3f} dB")
