"""An Inductor CPU step whose author turned the FX graph cache off: every process compiles it again.

A long elementwise chain fused into one kernel: most of its compile is Inductor's lowering and code generation,
which the FX graph cache saves (the C++ kernel's own cache stays warm either way). tdiag's CCH001 patch removes the
config line; tests/compile_cache/test_cache_fix.py verifies it on a warm run.
"""

import torch
import torch._inductor.config

torch._inductor.config.fx_graph_cache = False


# 12 links: the FX graph cache then saves most of a warm start (6.6 s -> 1.6 s on the 2-core machine), far beyond
# the verdict's 10% margin when another test shares the CPU; with 5 the saving was 2.2 -> 1.7 s and a CI run
# under load once measured it within the margin
def step(x):
    for _ in range(12):
        x = torch.sin(x) * 1.01 + torch.cos(x) * 0.5
    return x


compiled = torch.compile(step)
torch.manual_seed(0)
print(f"out {compiled(torch.randn(4, 8)).sum().item():.4f}")
