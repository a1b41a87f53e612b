"""Forward and backward hooks registered on a module before it is compiled and after (a new hook after compilation
is a guard failure and a recompile)."""

# differential: kind=script
import torch

torch.manual_seed(0)
seen = []
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
model[0].register_forward_hook(lambda m, i, o: o * 0.5)
model[2].register_full_backward_hook(lambda m, gi, go: seen.append("bwd-before"))
cmodel = torch.compile(model, backend="aot_eager")
x = torch.randn(3, 4)
for step in range(3):
    cmodel(x).sum().backward()
model[2].register_forward_pre_hook(lambda m, args: (args[0] + 1,))
model[0].register_full_backward_hook(lambda m, gi, go: seen.append("bwd-after"))
for step in range(3):
    out = cmodel(x)
    out.sum().backward()
print(round(out.sum().item(), 4), len(seen), sorted(set(seen)))
