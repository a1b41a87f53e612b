import torch

torch._dynamo.config.recompile_limit = 2
torch._dynamo.config.fail_on_recompile_limit_hit = True


def step(x):
    return x * 2


compiled = torch.compile(step, backend="eager")
for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
    out = compiled(torch.ones(4, dtype=dtype))
print("done", out.sum().item())
