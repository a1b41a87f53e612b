"""FIX CHECK: @torch.compiler.disable on hungarian_match (the scipy matching loop runs eagerly, the rest of the criterion is compiled)."""
"""DETR-style set prediction loss: Hungarian matching with scipy's linear_sum_assignment inside the compiled criterion."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment

torch.manual_seed(0)
NUM_QUERIES, NUM_CLASSES = 10, 5


class TinyDETRHead(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, d, 4, stride=4), nn.ReLU(), nn.Flatten(2))
        self.queries = nn.Parameter(torch.randn(NUM_QUERIES, d))
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.cls = nn.Linear(d, NUM_CLASSES + 1)
        self.box = nn.Linear(d, 4)

    def forward(self, img):
        mem = self.backbone(img).transpose(1, 2)
        q = self.queries.expand(img.shape[0], -1, -1)
        h, _ = self.attn(q, mem, mem)
        return self.cls(h), self.box(h).sigmoid()


@torch.compiler.disable
@torch.no_grad()
def hungarian_match(logits, boxes, tgt_labels, tgt_boxes):
    indices = []
    for b in range(logits.shape[0]):
        cost = -logits[b].softmax(-1)[:, tgt_labels[b]] + 5 * torch.cdist(boxes[b], tgt_boxes[b], p=1)
        rows, cols = linear_sum_assignment(cost.cpu().numpy())
        indices.append((torch.as_tensor(rows), torch.as_tensor(cols)))
    return indices


def set_criterion(logits, boxes, tgt_labels, tgt_boxes):
    indices = hungarian_match(logits, boxes, tgt_labels, tgt_boxes)
    target_classes = torch.full(logits.shape[:2], NUM_CLASSES, dtype=torch.long)
    loss_box = 0.0
    for b, (rows, cols) in enumerate(indices):
        target_classes[b, rows] = tgt_labels[b][cols]
        loss_box = loss_box + F.l1_loss(boxes[b, rows], tgt_boxes[b][cols], reduction="sum")
    loss_cls = F.cross_entropy(logits.flatten(0, 1), target_classes.flatten())
    return loss_cls + loss_box / logits.shape[0]


model = TinyDETRHead()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
criterion = torch.compile(set_criterion, backend="aot_eager")
imgs = torch.randn(32, 3, 32, 32)
tgt_labels = [torch.randint(0, NUM_CLASSES, (3,)) for _ in range(32)]
tgt_boxes = [torch.rand(3, 4) for _ in range(32)]
for step in range(16):
    i = (step % 4) * 8
    logits, boxes = model(imgs[i:i + 8])
    loss = criterion(logits, boxes, tgt_labels[i:i + 8], tgt_boxes[i:i + 8])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: set loss {loss.item():.4f}")
