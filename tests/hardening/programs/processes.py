"""Forks DataLoader workers and a multiprocessing pool that compile in the child, compiles in a thread, then ends
with os._exit(N) (argv[1]) so nothing of tdiag's runs at exit."""

import multiprocessing as mp
import os
import signal
import sys
import threading

import torch


@torch.compile(backend="eager")
def parent_fn(x):
    if x.sum() > 0:
        x = x + 1
    return x * 2


def child_only_fn(x):
    if x.sum() > 0:  # a graph break inside each child: it must not reach the parent's record
        x = x - 1
    return x * 3


class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.compile(child_only_fn, backend="eager")(torch.full((2,), float(i)))


def pool_job(i):
    return float(torch.compile(child_only_fn, backend="eager")(torch.full((2,), float(i))).sum())


def child_sigterm(_):
    return str(signal.getsignal(signal.SIGTERM))  # what Pool.terminate() will meet: the program's own disposition


def thread_fn(x):
    if x.mean() > 0:
        x = x * 5
    return x + 1


print("parent", parent_fn(torch.ones(3)).tolist())
loader = torch.utils.data.DataLoader(Data(), batch_size=2, num_workers=2, multiprocessing_context="fork")
print("loader", [b.tolist() for b in loader])
with mp.get_context("fork").Pool(2) as pool:
    print("pool", pool.map(pool_job, range(4)))
    print("pool worker SIGTERM", pool.map(child_sigterm, range(2)))
box = []
t = threading.Thread(target=lambda: box.append(torch.compile(thread_fn, backend="eager")(torch.ones(2)).tolist()))
t.start()
t.join()
print("thread", box)
sys.stdout.flush()
os._exit(int(sys.argv[1]))
