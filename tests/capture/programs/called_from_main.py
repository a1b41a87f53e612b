"""A compiled function called from a function (not from module level): the recompile's call site is the line in
main() that made the call, not the line that called main()."""

import torch


def step(x):
    return torch.sin(x) * 2


cstep = torch.compile(step, backend="eager")


def main():
    cstep(torch.ones(4))
    cstep(torch.ones(4, 4))  # a new number of dimensions: the recompile is this line's


main()
