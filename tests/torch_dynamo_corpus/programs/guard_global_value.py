# Family of test/dynamo/test_misc.py global-variable guard tests: a module-level Python value read inside the
# compiled function is guarded on ("G['SCALE'] == 1"-style); changing it recompiles.
# Exact torch test name not verified for this program.
import torch

SCALE = 1


@torch.compile(backend="eager")
def apply(x):
    return x * SCALE


out = []
for s in (1, 2, 3, 4):
    SCALE = s
    out.append(apply(torch.ones(2)).sum().item())
print("sums:", out)
