"""A helper cached with functools.lru_cache, called inside a compiled function: directly, and from a function
Dynamo inlines. Dynamo ignores the cache wrapper there and warns once per call line (torch's UserWarning)."""

import functools

import torch


@functools.lru_cache(maxsize=None)
def scale_for(n):
    return 1.0 / n


def normalised(x):
    return x * scale_for(x.shape[0])  # CACHED CALL IN HELPER


@torch.compile(backend="eager")
def step(x):
    y = normalised(x + 1)
    return y + scale_for(2)  # CACHED CALL


print(scale_for(4))  # eager: the cache is used
for _ in range(3):
    out = step(torch.ones(4))
print(float(out.sum()))
