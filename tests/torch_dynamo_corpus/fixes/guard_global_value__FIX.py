# FIX (pass the changing value in as a tensor argument instead of reading a global)
# Family of test/dynamo/test_misc.py global-variable guard tests: a module-level Python value read inside the
# compiled function is guarded on ("G['SCALE'] == 1"-style); changing it recompiles.
# Exact torch test name not verified for this program.
import torch

SCALE = 1


@torch.compile(backend="eager")
def apply(x, scale):
    return x * scale


out = []
for s in (1, 2, 3, 4):
    SCALE = s
    out.append(apply(torch.ones(2), torch.tensor(float(SCALE))).sum().item())
print("sums:", out)
