"""GPT-style MLP blocks with the bias-GeLU fusion written as Megatron-LM's fused_bias_gelu.py writes it: the bias
add and the tanh-approximated GeLU in a helper decorated with @torch.jit.script (the old way to get a fused
kernel), the linear layers created with skip_bias_add so the bias is handed to the fused helper. The model is now
compiled with torch.compile and trained on a toy regression task."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


@torch.jit.script
def bias_gelu(bias, y):
    x = bias + y
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


class ParallelMLP(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        # skip_bias_add: the first projection returns its bias separately, as in Megatron's ColumnParallelLinear
        self.dense_h_to_4h = nn.Linear(hidden, ffn, bias=False)
        self.bias_h_to_4h = nn.Parameter(torch.zeros(ffn))
        self.dense_4h_to_h = nn.Linear(ffn, hidden)

    def forward(self, hidden_states):
        intermediate = self.dense_h_to_4h(hidden_states)
        intermediate = bias_gelu(self.bias_h_to_4h, intermediate)
        return self.dense_4h_to_h(intermediate)


class Block(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.ln = nn.LayerNorm(hidden)
        self.mlp = ParallelMLP(hidden, ffn)

    def forward(self, x):
        return x + self.mlp(self.ln(x))


class Model(nn.Module):
    def __init__(self, hidden=64, ffn=256, layers=4):
        super().__init__()
        self.blocks = nn.ModuleList(Block(hidden, ffn) for _ in range(layers))
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x).squeeze(-1)


def main():
    model = Model()
    model = torch.compile(model, backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    w_true = torch.randn(64)
    last = []
    for step in range(120):
        x = torch.randn(32, 16, 64)
        y = torch.sin(x @ w_true / 8.0)
        loss = F.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 40 == 0 or step == 119:
            print(f"step {step:3d} loss {loss.item():.5f}")
        last.append(loss.item())
    print(f"mean loss over the last 20 steps {sum(last[-20:]) / 20:.5f}")


if __name__ == "__main__":
    main()
