"""Forks right after the first compiled call: the child inherits tdiag's runtime window in its settling state and
then calls the compiled function enough times to open it. Only the parent may ever start the profiler."""

import os

import torch

f = torch.compile(lambda x: x * 2 + 1, backend="eager")
x = torch.ones(4)
f(x)
pid = os.fork()
if pid == 0:
    for _ in range(12):
        f(x)
    print("child profiler on:", torch._C._autograd._profiler_enabled(), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
for _ in range(40):
    f(x)
print("parent done", flush=True)
