"""A compiler backend that raises: with suppress_errors, torch logs BackendCompilerFailed and runs `fn` eagerly."""
import torch

torch._dynamo.config.suppress_errors = True


def broken_backend(gm, example_inputs):
    raise RuntimeError("broken backend")


def fn(x):
    return torch.sin(x) + 1


compiled = torch.compile(fn, backend=broken_backend)
print(compiled(torch.ones(3)).tolist())
