"""Valid code that torch.compile fails on inside torch (2.13 and 2.14): Dynamo cannot format a symbolic size with a
float format spec and raises InternalTorchDynamoError (ValueError: Unknown format code 'f' for object of type 'str'),
the fault torch 2.14.1 also has for `print(f"loss {loss.item():.4f}")`. Eagerly, report() just prints."""

import torch


def report(x):
    print(f"rows {x.shape[0]:.1f}")


@torch.compile(backend="eager", dynamic=True)
def step(x):
    y = x * 2
    report(y)
    return y.sum()


print("start")
for n in (4, 6):
    print(f"sum {step(torch.ones(n)).item():.1f}")
