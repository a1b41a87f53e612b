"""A train step that logs its loss inside the compiled function: torch 2.14.1 raises InternalTorchDynamoError
(ValueError: Unknown format code 'f' for object of type 'str') on the f-string; 2.13 runs it (a graph break at
.item()). tests/crash/records/item_format-2.14.1 is its record under 2.14.1 (its paths made relative)."""

import torch


@torch.compile(backend="eager")
def train_step(x, step):
    loss = (x * 2).sum()
    val = loss.item()
    print(f"step {step} loss {val:.4f}")
    return loss


for s in range(3):
    train_step(torch.ones(4 + s), s)
print("done")
