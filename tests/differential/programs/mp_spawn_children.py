"""``multiprocessing`` spawn children that each compile and run a function (each child has its own counters)."""

# differential: kind=script
import multiprocessing as mp

import torch


@torch.compile(backend="eager")
def work(x, k):
    if x.sum() > 0:
        x = x + k
    return x * 2


def child(seed, queue):
    torch.manual_seed(seed)
    out = [round(work(torch.randn(4), k).sum().item(), 4) for k in (1, 2, 1)]
    queue.put((seed, out))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=child, args=(seed, queue)) for seed in (1, 2)]
    for p in procs:
        p.start()
    results = sorted(queue.get() for _ in procs)
    for p in procs:
        p.join()
    print(results, [p.exitcode for p in procs])
    print("parent", work(torch.ones(2), 3).tolist())
