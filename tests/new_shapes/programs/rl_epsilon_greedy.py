"""A DQN agent's epsilon-greedy action choice with Python's random module, as RL tutorials write it, compiled."""

import random

import torch

random.seed(0)
torch.manual_seed(0)
q_net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))


@torch.compile(backend="eager")
def select_action(state, epsilon):
    if random.random() < epsilon:  # EXPECT: Python's RNG in the compiled function
        return torch.randint(0, 2, (1,))
    return q_net(state).argmax(dim=-1)


state = torch.randn(1, 4)
actions = []
for episode in range(6):
    actions.append(int(select_action(state, 0.1)))
    state = torch.randn(1, 4)
print("actions", actions)
