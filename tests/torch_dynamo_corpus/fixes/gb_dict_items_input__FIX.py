# FIX (torch's hint: create the dict view inside the compiled region; pass the dict)
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_dict_items_input
# torch's test asserts (fullgraph=True): Unsupported "Unsupported method call" (gb0156),
# "Dynamo does not know how to trace method `__iter__` of class `dict_items`", with the hint to create the dict
# view inside the compiled region instead of passing it in.
import torch


@torch.compile(backend="eager")
def first_item(x, cfg):
    it = iter(cfg.items())
    return next(it), x.sin()


x = torch.arange(3, dtype=torch.float32)
cfg = {"a": 3, "b": 4}
for _ in range(3):
    (k, v), y = first_item(x, cfg)
print("first:", k, v, "sin:", [round(t, 4) for t in y.tolist()])
