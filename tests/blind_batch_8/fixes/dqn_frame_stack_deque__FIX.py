"""FIX: act() drops the oldest frame itself (popleft when the deque is full) before append, so the traced deque never holds 5 frames.
DQN-style acting with Atari frame stacking: the agent keeps the last 4 observations in a
collections.deque(maxlen=4), as the Atari wrappers and DQN tutorials do, and its compiled act()
appends the new frame and stacks the deque into the Q-network's 4-channel input."""
import collections

import torch
import torch.nn as nn

torch.manual_seed(0)
STACK, SIZE, ACTIONS = 4, 24, 6


class QNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(STACK, 16, 5, stride=2), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, ACTIONS))

    def forward(self, x):
        return self.head(self.conv(x))


class Agent:
    def __init__(self, qnet):
        self.qnet = qnet
        self.frames = collections.deque(maxlen=STACK)

    def reset(self, obs):
        for _ in range(STACK):
            self.frames.append(obs)

    def act(self, obs):
        if len(self.frames) == STACK:
            self.frames.popleft()
        self.frames.append(obs)
        state = torch.cat(list(self.frames), dim=0).unsqueeze(0)
        q = self.qnet(state)
        return q.argmax(dim=1), q.max()


def fake_env_frames(steps):
    base = torch.rand(1, SIZE, SIZE)
    for t in range(steps):
        yield (base + 0.05 * t * torch.randn(1, SIZE, SIZE)).clamp(0, 1)


def main():
    agent = Agent(QNetwork().eval())
    act = torch.compile(agent.act, backend="eager")
    returns = []
    with torch.no_grad():
        for episode in range(8):
            frames = fake_env_frames(3000)
            agent.reset(next(frames))
            actions, qsum = [], 0.0
            for obs in frames:
                a, qmax = act(obs)
                actions.append(int(a))
                qsum += float(qmax)
            returns.append(qsum)
            print(f"episode {episode}: actions histogram {torch.bincount(torch.tensor(actions), minlength=ACTIONS).tolist()}"
                  f" mean max-Q {qsum / len(actions):.4f}")
    print(f"total {sum(returns):.4f}")


if __name__ == "__main__":
    main()
