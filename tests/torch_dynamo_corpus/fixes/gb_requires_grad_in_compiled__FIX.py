# FIX (create the requires_grad leaf outside and pass it in)
# Source: graph-break registry entry GB0225 "Attempted to use tensor creation function with requires_grad=True"
# (torch/_dynamo/graph_break_registry.json). Exact torch test name not verified.
import torch


@torch.compile(backend="eager")
def make_param_and_use(x, bias):
    return (x + bias).sum(), bias


for _ in range(3):
    bias = torch.zeros(3, requires_grad=True)
    s, bias = make_param_and_use(torch.ones(3), bias)
s.backward()
print("s:", s.item(), "bias.grad:", bias.grad.tolist())
