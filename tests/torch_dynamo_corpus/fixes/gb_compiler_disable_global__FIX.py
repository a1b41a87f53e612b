# FIX (torch's hint: remove the torch.compiler.disable (the helper is traceable))
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_disable_message (variant: the
# disabled function is a module-level helper called directly, not passed in).
# torch's test asserts for the passed-in case "Skip calling `torch.compiler.disable()`d function" (gb0098);
# the registry's sibling for the inlined call is gb0099 "Skip inlining `torch.compiler.disable()`d function".
import torch


def log_stats(x):
    return x.mean()


@torch.compile(backend="eager")
def step(x):
    y = torch.relu(x)
    m = log_stats(y)
    return y * m


torch.manual_seed(0)
x = torch.randn(8)
for _ in range(3):
    out = step(x)
print("out sum:", round(out.sum().item(), 4))
