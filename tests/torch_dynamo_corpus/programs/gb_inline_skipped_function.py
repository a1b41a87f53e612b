# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_skipfile_inline
# torch's test asserts (fullgraph=True): Unsupported "Attempted to inline function marked as skipped" (gb0008),
# "Dynamo developers have intentionally marked that the function `skip` should not be traced"
# (skip reason: skipped according trace_rules.lookup unittest).
import unittest

import torch


class Helper:
    mark = unittest.skip


@torch.compile(backend="eager")
def fn(x):
    x = x + 1
    Helper().mark()
    return x * 3


for _ in range(3):
    out = fn(torch.ones(2))
print("out:", out.tolist())
