import threading

import torch


def step(x):
    h = x * 2
    if h.sum() > 0:
        return h + 1
    return h - 1


def worker():
    compiled = torch.compile(step, backend="eager", fullgraph=True)
    compiled(torch.ones(4))


t = threading.Thread(target=worker, name="trainer")
t.start()
t.join()
print("main thread carried on")
