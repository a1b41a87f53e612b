# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_multiple_guard_fails_report_all
# torch's test asserts the guard failure text "len(x) == 3" (then "len(x) == 2") for a list argument whose length
# changes (dynamic=False in torch's test; default here).
import torch


@torch.compile(backend="eager")
def f(xs):
    return torch.ones(len(xs), xs[-1]).sum()


out = [f([4, 5, 6]).item(), f([7, 8]).item(), f([9]).item(), f([1, 2, 3, 4]).item()]
print("sums:", out)
