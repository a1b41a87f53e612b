# Family of test/dynamo/test_misc.py global-state guard tests (grad mode is part of dynamo's global state guard):
# calling the same compiled function under torch.no_grad() and with grad enabled recompiles once
# ("GLOBAL_STATE changed: grad_mode"). Exact torch test name not verified.
import torch

torch.manual_seed(0)
lin = torch.nn.Linear(4, 2)


@torch.compile(backend="eager")
def predict(x):
    return lin(x).softmax(-1)


x = torch.randn(3, 4)
with torch.no_grad():
    p1 = predict(x)
p2 = predict(x)
p2.sum().backward()
print("p1 sum:", round(p1.sum().item(), 4), "grad norm:", round(lin.weight.grad.norm().item(), 4))
