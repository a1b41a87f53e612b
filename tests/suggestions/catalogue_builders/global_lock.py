import threading

import torch

LOCK = threading.Lock()
totals = torch.zeros(2)


@torch.compile(backend="eager")
def accumulate(t, x):
    with LOCK:
        t = t + x * 2
    return t


def main():
    t = totals
    for i in range(3):
        t = accumulate(t, torch.full((2,), float(i)))
    print("t:", t.tolist())


main()
