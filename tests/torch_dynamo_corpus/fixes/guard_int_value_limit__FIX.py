# FIX (drop dynamic=False: the int becomes dynamic after one recompile)
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_recompile_limit_hit_message and
# test/dynamo/test_recompiles.py :: test_no_recursive_compile_after_cache_limit_hit
# torch's test asserts the warning "torch._dynamo hit config.recompile_limit (1) ... last reason: 0/0: n == 0" for a
# Python int argument under dynamic=False. Here the default limit (8) and 12 distinct ints.
import torch


@torch.compile(backend="eager")
def fn(x, n):
    return x + n


x = torch.ones(3)
for i in range(12):
    x = fn(x, i)
print("x:", x.tolist())
