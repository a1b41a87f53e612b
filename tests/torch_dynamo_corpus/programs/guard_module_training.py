# From pytorch/pytorch test/dynamo/test_recompiles.py :: RecompileTests.test_simple_module_recompile
# torch's test asserts: alternating model.eval()/model.train() for 20 rounds compiles exactly 2 frames (guard on the
# module's `training` flag; one entry per mode, no further recompiles).
import torch


class SimpleDropout(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dropout = torch.nn.Dropout(0.5)
        self.linear = torch.nn.Linear(10, 1)

    def forward(self, x):
        return self.dropout(self.linear(x))


torch.manual_seed(0)
model = torch.compile(SimpleDropout(), backend="eager")
x = torch.randn(10)
for _ in range(5):
    model.eval()
    y_eval = model(x)
    model.train()
    model(x)
print("eval out:", round(y_eval.item(), 4))
