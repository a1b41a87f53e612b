# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_lru_cache_warning
# (and test_lru_cache_warning_logs_nested_call): torch's test asserts a UserWarning "call to a lru_cache wrapped
# function" pointing at the user line that calls it ("This call originates from: ... in bar"); dynamo traces the
# wrapped function ignoring the cache.
from functools import lru_cache

import torch


@lru_cache
def bias_for(x):
    return x + 1


def bar(x):
    return bias_for(x)


@torch.compile(backend="eager")
def foo(x):
    return bar(x) * 2


x = torch.ones(2)
for _ in range(3):
    y = foo(x)
print("y:", y.tolist())
