import torch

model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
compiled = torch.compile(model, backend="eager")
x = torch.ones(2, 4)
compiled.train()
compiled(x)
compiled.eval()
compiled(x)
print("done")
