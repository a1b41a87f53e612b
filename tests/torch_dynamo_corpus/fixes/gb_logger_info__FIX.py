# FIX (torch's hint: torch._dynamo.config.ignore_logger_methods (the message is not emitted: no handler, level WARNING))
# Source: graph-break registry entry GB0291 "logging.Logger method not supported for non-export cases"
# (torch/_dynamo/graph_break_registry.json); hint: add the method to torch._dynamo.config.ignore_logger_methods.
# Exact torch test name not verified.
import logging

import torch

logger = logging.getLogger("train")
torch._dynamo.config.ignore_logger_methods.add(logger.info)


@torch.compile(backend="eager")
def step(x, w):
    y = x @ w
    logger.info("forward done")
    return y.relu().sum()


torch.manual_seed(0)
x, w = torch.randn(4, 4), torch.randn(4, 4)
for _ in range(3):
    s = step(x, w)
print("sum:", round(s.item(), 4))
