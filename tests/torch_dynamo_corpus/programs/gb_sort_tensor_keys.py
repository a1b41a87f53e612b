# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_sort_with_nonconstant_keys
# torch's test asserts (fullgraph=True): Unsupported "sort with non-constant keys" (gb0207),
# "Cannot perform sort with non-constant key. First non-constant key type: <class 'torch.Tensor'>".
# Here fullgraph=False: the user sorts a list of scalar tensors inside the compiled function.
import torch


@torch.compile(backend="eager")
def top_scores(scores):
    ranked = sorted(scores)
    return torch.stack(ranked) * 2


scores = [torch.tensor(4.0), torch.tensor(1.0), torch.tensor(2.0), torch.tensor(3.0)]
for _ in range(3):
    out = top_scores(scores)
print("sorted*2:", out.tolist())
