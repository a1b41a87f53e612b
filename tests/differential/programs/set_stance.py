"""``torch.compiler.set_stance``: force_eager, eager_on_recompile, fail_on_recompile, as a context and globally."""

# differential: kind=script
import torch


@torch.compile(backend="eager")
def f(x):
    return x * 2 + 1


print(f(torch.ones(2)).tolist())
with torch.compiler.set_stance("force_eager"):
    print(f(torch.ones(3)).tolist())
torch.compiler.set_stance("eager_on_recompile")
print(f(torch.ones(4)).tolist())
torch.compiler.set_stance("default")
print(f(torch.ones(5)).tolist())
with torch.compiler.set_stance("fail_on_recompile"):
    try:
        f(torch.ones(6, 2))
    except Exception as exc:
        print("refused", type(exc).__name__)
print(f(torch.ones(6, 2)).sum().item())
