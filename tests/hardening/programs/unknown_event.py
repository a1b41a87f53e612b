"""Emits structured-trace events no tdiag knows, then graph-breaks."""

import torch
from torch._logging import trace_structured

trace_structured("tdiag_test_future_event", metadata_fn=lambda: {"anything": [1, 2, {"x": None}]}, payload_fn=lambda: "p" * 5000)
trace_structured("artifact", metadata_fn=lambda: {"name": "tdiag_test_future_artifact", "encoding": "string"}, payload_fn=lambda: "q")


@torch.compile(backend="eager")
def f(x):
    if x.sum() > 0:
        x = x + 1
    return x * 2


print(f(torch.ones(2)).tolist())
