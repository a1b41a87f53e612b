"""Post-training int8 weight quantization with a percentile (clipping) scale; the fake-quant forward is compiled
with the default Inductor backend for evaluation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def quantize_int8(w, pct=0.999):
    # per-tensor symmetric scale from a high percentile of |w| (clip the outliers)
    scale = torch.quantile(w.abs().flatten().float(), pct) / 127
    q = torch.round(w / scale).to(torch.int8)
    return q, scale


class QuantLinear(nn.Module):
    def __init__(self, linear):
        super().__init__()
        self.weight = nn.Parameter(linear.weight.detach().clone(), requires_grad=False)
        self.bias = nn.Parameter(linear.bias.detach().clone(), requires_grad=False)

    def forward(self, x):
        q, scale = quantize_int8(self.weight)
        return F.linear(x, q.float() * scale, self.bias)


fp_model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
with torch.no_grad():  # a few large outlier weights, as trained layers have
    fp_model[0].weight[0, :4] = torch.tensor([0.9, -1.1, 1.3, -0.8])
    fp_model[2].weight[3, :3] = torch.tensor([1.2, -0.9, 1.0])
q_model = nn.Sequential(QuantLinear(fp_model[0]), nn.ReLU(), QuantLinear(fp_model[2])).eval()
compiled = torch.compile(q_model)

x = torch.randn(256, 32)
with torch.no_grad():
    ref = fp_model(x)
    out = compiled(x)
err = (out - ref).abs().max().item()
agree = (out.argmax(1) == ref.argmax(1)).float().mean().item()
print(f"max abs error vs fp32: {err:.4f}")
print(f"top-1 agreement with fp32: {agree:.3f}")
print(f"checksum: {out.sum().item():.4f}")
