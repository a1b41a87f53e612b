"""Forward and backward through torch.compile with and without a graph break; saves every result bitwise.

argv: OUT_PATH BACKEND [BACKEND...]. Prints a digest to stdout and a line to stderr; exits 0.
"""

import sys

import torch


def body(x, w, with_break):
    y = torch.tanh(x @ w) * 1.5
    if with_break and y.sum() > 0:  # data-dependent branch: a graph break
        y = y + torch.sin(y)
    noise = torch.rand_like(y)  # consumes the RNG inside the compiled region
    return (y * noise).sum(dim=1)


results = {}
for backend in sys.argv[2:]:
    for with_break in (False, True):
        torch._dynamo.reset()
        torch.manual_seed(1234)
        fn = torch.compile(body, backend=backend)
        x = torch.randn(8, 16, requires_grad=True)
        w = torch.randn(16, 16, requires_grad=True)
        out = fn(x, w, with_break)
        out.sum().backward()
        key = f"{backend}-{'break' if with_break else 'nobreak'}"
        results[key] = {"out": out.detach(), "x.grad": x.grad, "w.grad": w.grad}
        print(key, float(out.sum()))
results["rng_state"] = torch.get_rng_state()
torch.save(results, sys.argv[1])
print("done", file=sys.stderr)
