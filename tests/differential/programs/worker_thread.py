"""A compiled model called from a worker thread (as a serving loop would), then from the main thread."""

# differential: kind=script
import threading

import torch

torch.manual_seed(0)
model = torch.compile(torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()), backend="aot_eager")
results = []


def serve():
    with torch.no_grad():
        for n in (2, 2, 3, 3, 2):
            results.append(round(model(torch.ones(n, 8)).sum().item(), 4))


worker = threading.Thread(target=serve)
worker.start()
worker.join()
print("worker", results)
print("main", round(model(torch.ones(2, 8)).sum().item(), 4))
