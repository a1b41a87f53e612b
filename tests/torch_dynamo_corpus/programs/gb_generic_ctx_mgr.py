# From pytorch/pytorch test/dynamo/test_error_messages.py ::
#   ErrorMessagesTest.test_generic_ctx_mgr_graph_break_fullgraph_false
# torch's test asserts one graph_breaks record: "Failed to handle graph break gracefully. Skipping the function and
# falling back to eager", the break (gb0025 there) then "Graph break under GenericContextWrappingVariable" (gb0066),
# hint: move the context manager outside the compiled region.
# Here: a user-defined "named scope" context manager with a print inside the block.
import torch

SCOPES = []


class Scope:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        SCOPES.append(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        SCOPES.pop()


@torch.compile(backend="eager")
def forward(x, w):
    with Scope("mlp"):
        h = x @ w
        print("matmul done")
        h = torch.relu(h)
    return h.sum()


torch.manual_seed(0)
x, w = torch.randn(4, 4), torch.randn(4, 4)
for _ in range(3):
    s = forward(x, w)
print("sum:", round(s.item(), 4), "open scopes:", len(SCOPES))
