"""REINFORCE with a baseline on a batch of small corridor environments written in torch: the compiled
policy returns a torch.distributions.Categorical's sampled action, log-probability and entropy; the
environment steps and the return computation run outside."""
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
N_ENVS, LENGTH, HORIZON = 64, 8, 12


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(LENGTH, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.logits = nn.Linear(64, 2)   # 0: left, 1: right
        self.value = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.logits(h), self.value(h).squeeze(-1)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)


@torch.compile(backend="aot_eager")
def act(obs):
    logits, value = policy(obs)
    dist = Categorical(logits=logits)
    action = dist.sample()
    return action, dist.log_prob(action), dist.entropy(), value


def env_step(pos, action):
    pos = (pos + torch.where(action == 1, 1, -1)).clamp(0, LENGTH - 1)
    reward = (pos == LENGTH - 1).float() - 0.01
    return pos, reward


def one_hot(pos):
    return torch.nn.functional.one_hot(pos, LENGTH).float()


for update in range(30):
    pos = torch.zeros(N_ENVS, dtype=torch.long)
    log_probs, entropies, values, rewards = [], [], [], []
    for t in range(HORIZON):
        action, logp, ent, value = act(one_hot(pos))
        pos, reward = env_step(pos, action)
        log_probs.append(logp)
        entropies.append(ent)
        values.append(value)
        rewards.append(reward)
    returns, running = [], torch.zeros(N_ENVS)
    for r in reversed(rewards):
        running = r + 0.99 * running
        returns.append(running)
    returns = torch.stack(returns[::-1])
    log_probs, entropies, values = torch.stack(log_probs), torch.stack(entropies), torch.stack(values)
    advantage = returns - values.detach()
    loss = -(log_probs * advantage).mean() + 0.5 * (returns - values).pow(2).mean() - 0.01 * entropies.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if update % 10 == 0 or update == 29:
        print(f"update {update:2d}  mean return {returns[0].mean().item():.3f}  loss {loss.item():.4f}")
