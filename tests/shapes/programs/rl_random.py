"""A DQN-style epsilon-greedy action choice with Python's RNG inside the compiled policy."""
import random

import torch

torch.manual_seed(0)
random.seed(0)
q_net = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))


@torch.compile(backend="aot_eager")
def act(state, epsilon):
    q = q_net(state)
    if random.random() < epsilon:
        return torch.randint(0, 2, (state.shape[0],))
    return q.argmax(dim=-1)


for step in range(6):
    a = act(torch.randn(8, 4), 0.1)
print("actions", a.sum().item())
