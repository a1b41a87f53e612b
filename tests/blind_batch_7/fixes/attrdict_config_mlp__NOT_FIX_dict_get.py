"""NOT_FIX: __getattr__ = dict.get (the "safer" variant of the same recipe) instead of dict.__getitem__.
A model configured by the usual attribute-access dict (`class AttrDict(dict): __getattr__ = dict.__getitem__`,
the Stack Overflow recipe many research repos paste in): the config is loaded once and kept on the module, and
forward reads `self.cfg.<field>` for the activation, the residual switch and the output scale. Compiled training."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class AttrDict(dict):
    __getattr__ = dict.get
    __setattr__ = dict.__setitem__


CONFIG = AttrDict(d_in=24, d_hidden=96, n_layers=3, n_classes=5, activation="silu", residual=True, logit_scale=2.0)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.inp = nn.Linear(cfg.d_in, cfg.d_hidden)
        self.layers = nn.ModuleList(nn.Linear(cfg.d_hidden, cfg.d_hidden) for _ in range(cfg.n_layers))
        self.norm = nn.LayerNorm(cfg.d_hidden)
        self.out = nn.Linear(cfg.d_hidden, cfg.n_classes)

    def forward(self, x):
        act = getattr(F, self.cfg.activation)
        h = act(self.inp(x))
        for layer in self.layers:
            h = h + act(layer(h)) if self.cfg.residual else act(layer(h))
        return self.out(self.norm(h)) * self.cfg.logit_scale


def main():
    model = MLP(CONFIG)
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(1024, CONFIG.d_in)
    y = (x[:, :5] * torch.arange(1, 6)).argmax(1)
    for epoch in range(3):
        for i in range(0, 1024, 64):
            loss = F.cross_entropy(compiled(x[i:i + 64]), y[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            acc = (compiled(x).argmax(1) == y).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.4f}")


if __name__ == "__main__":
    main()
