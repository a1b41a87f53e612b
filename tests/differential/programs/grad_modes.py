"""The same compiled function under autocast, ``no_grad`` and ``inference_mode`` (each a guard and a recompile)."""

# differential: kind=script
import torch

torch.manual_seed(0)
lin = torch.nn.Linear(8, 8)


@torch.compile(backend="aot_eager")
def f(x):
    return lin(x).relu().sum(dim=1)


x = torch.randn(4, 8)
print("grad", [round(v, 3) for v in f(x).tolist()])
with torch.no_grad():
    print("no_grad", [round(v, 3) for v in f(x).tolist()])
with torch.inference_mode():
    print("inference_mode", [round(v, 3) for v in f(x).tolist()])
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("autocast", f(x).dtype, [round(v, 1) for v in f(x).float().tolist()])
print("grad again", [round(v, 3) for v in f(x).tolist()])
