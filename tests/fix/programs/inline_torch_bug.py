"""torch's own fault on a line written directly in the compiled function (torch 2.13 and 2.14): Dynamo cannot
format a symbolic size with a float format spec and raises InternalTorchDynamoError (ValueError: Unknown format
code 'f' for object of type 'str'). Eagerly the line just prints; the rows line reads a local of step."""

import torch


@torch.compile(backend="eager", dynamic=True)
def step(x):
    y = x * 2
    print(f"rows {y.shape[0]:.1f}")
    return y.sum()


print("start")
for n in (4, 6):
    print(f"sum {step(torch.ones(n)).item():.1f}")
