"""A custom autograd.Function as torch's 'Extending torch.autograd' docs show (save_for_backward,
ctx.needs_input_grad), used in a compiled training step."""

import torch

torch.manual_seed(0)


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias):
        ctx.save_for_backward(input, weight, bias)
        return input.mm(weight.t()) + bias

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


weight = torch.nn.Parameter(torch.randn(8, 16) * 0.1)
bias = torch.nn.Parameter(torch.zeros(8))
opt = torch.optim.SGD([weight, bias], lr=0.1)


@torch.compile(backend="aot_eager")
def loss_fn(x):
    return LinearFunction.apply(x, weight, bias).relu().pow(2).mean()


x = torch.randn(32, 16)
for _ in range(3):
    opt.zero_grad()
    loss = loss_fn(x)
    loss.backward()
    opt.step()
print(f"loss {loss.item():.6f}")
