import torch


@torch.compile(backend="eager")
def largest_first(values):
    order = sorted(values, reverse=True)
    return order[0] - order[-1], torch.stack(order)


vals = [torch.tensor(2.5), torch.tensor(-1.0), torch.tensor(7.0)]
for _ in range(2):
    spread, ranked = largest_first(vals)
print("spread:", spread.item(), "ranked:", ranked.tolist())
