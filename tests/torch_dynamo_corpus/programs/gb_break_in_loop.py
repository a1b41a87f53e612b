# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_graph_break_in_loop (second part)
# torch's test asserts: "Data-dependent branching" (gb0170) and then "graph break in loop" (gb7000),
# "Skipping the frame and falling back to eager, as graph breaks in loops are not supported".
import torch


@torch.compile(backend="eager")
def gn(x):
    for i in range(2):
        if x.sum() > 0:
            x = x + 1
        else:
            x = x + 2
    return x + 4


for _ in range(3):
    out = gn(torch.ones(3))
print("out:", out.tolist())
