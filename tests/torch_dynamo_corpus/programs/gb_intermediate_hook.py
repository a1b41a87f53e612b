# Source: graph-break registry entry GB0029 "Compilation of intermediate hooks requires compiled autograd"
# (torch/_dynamo/graph_break_registry.json). Exact torch test name not verified (test/dynamo/test_hooks.py family).
import torch

grads = []


@torch.compile(backend="eager")
def forward(x, w):
    h = x @ w
    h.register_hook(lambda g: grads.append(g.norm()))
    return h.tanh().sum()


torch.manual_seed(0)
x = torch.randn(3, 4)
w = torch.randn(4, 2, requires_grad=True)
for _ in range(2):
    loss = forward(x, w)
    loss.backward()
print("loss:", round(loss.item(), 4), "hook calls:", len(grads), "grad norm:", round(w.grad.norm().item(), 4))
