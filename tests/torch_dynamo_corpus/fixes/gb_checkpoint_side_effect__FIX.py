# FIX (torch's hint: skip_fwd_side_effects_in_bwd_under_checkpoint = True (the list append is bookkeeping only))
# From pytorch/pytorch test/dynamo/test_error_messages.py ::
#   ErrorMessagesTest.test_hop_side_effect_error_includes_hop_context_fullgraph_false
# torch's test asserts one graph_breaks record: "HOP: Unsafe side effect" (gb0067) under
# torch.utils.checkpoint.checkpoint, "Mutating a variable from outside the scope of this HOP is not supported",
# hint: torch._dynamo.config.skip_fwd_side_effects_in_bwd_under_checkpoint = True.
import torch
import torch.utils.checkpoint

torch._dynamo.config.skip_fwd_side_effects_in_bwd_under_checkpoint = True

calls = []


def block(x):
    calls.append(1)
    return x.sin()


@torch.compile(backend="eager")
def model(x):
    return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)


torch.manual_seed(0)
x = torch.rand(4, requires_grad=True)
for _ in range(2):
    y = model(x)
    y.sum().backward()
print("grad:", [round(v, 4) for v in x.grad.tolist()])
