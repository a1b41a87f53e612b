# FIX (torch's hint: add warnings.warn to torch._dynamo.config.reorderable_logging_functions)
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_warnings
# torch's test asserts (fullgraph=True): Unsupported "Attempted to call function marked as skipped" (gb0007),
# "Dynamo does not know how to trace the Python builtin `_warnings.warn`".
import warnings

import torch

torch._dynamo.config.reorderable_logging_functions.add(warnings.warn)


@torch.compile(backend="eager")
def normalize(x):
    if x.shape[0] < 8:
        warnings.warn("small batch, statistics may be noisy")
    return (x - x.mean()) / (x.std() + 1e-5)


warnings.simplefilter("ignore")
x = torch.arange(4, dtype=torch.float32)
for _ in range(3):
    y = normalize(x)
print("normalized:", [round(v, 4) for v in y.tolist()])
