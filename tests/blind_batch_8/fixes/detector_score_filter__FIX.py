"""FIX: torch._dynamo.config.capture_dynamic_output_shape_ops = True (boolean-mask indexing traced with an unbacked size).
Evaluation of a small single-shot detector (anchor grid, per-anchor class scores and box offsets) with
the post-processing inside the compiled predict(): keep the detections above a score threshold, sort
them, keep the best MAX_DET, as detection tutorials write their decode step."""
import torch
import torch.nn as nn

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)
GRID, ANCHORS, CLASSES, SCORE_THRESH, MAX_DET = 8, 3, 4, 0.555, 20


class TinySSD(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(32, ANCHORS * CLASSES, 1)
        self.box = nn.Conv2d(32, ANCHORS * 4, 1)
        ys, xs = torch.meshgrid(torch.arange(GRID), torch.arange(GRID), indexing="ij")
        centers = torch.stack([xs, ys], -1).float().add(0.5).div(GRID).reshape(-1, 1, 2).expand(-1, ANCHORS, 2)
        sizes = torch.tensor([0.1, 0.2, 0.4]).view(1, ANCHORS, 1).expand(GRID * GRID, ANCHORS, 2)
        self.register_buffer("anchors", torch.cat([centers, sizes], -1).reshape(-1, 4))

    def forward(self, img):
        f = self.backbone(img)
        scores = self.cls(f).permute(0, 2, 3, 1).reshape(-1, CLASSES).sigmoid()
        offsets = self.box(f).permute(0, 2, 3, 1).reshape(-1, 4)
        boxes = torch.cat([self.anchors[:, :2] + 0.1 * offsets[:, :2] * self.anchors[:, 2:],
                           self.anchors[:, 2:] * offsets[:, 2:].clamp(max=4).exp()], -1)
        return scores, boxes


model = TinySSD().eval()


@torch.compile(backend="aot_eager")
def predict(img):
    scores, boxes = model(img)
    best, labels = scores.max(dim=1)
    keep = best > SCORE_THRESH
    best, labels, boxes = best[keep], labels[keep], boxes[keep]
    order = best.argsort(descending=True)[:MAX_DET]
    return boxes[order], best[order], labels[order]


def main():
    images = torch.rand(300, 1, 3, 32, 32)
    counts, score_sum, per_class = [], 0.0, torch.zeros(CLASSES, dtype=torch.long)
    with torch.no_grad():
        for img in images:
            boxes, scores, labels = predict(img)
            counts.append(len(scores))
            score_sum += scores.sum().item()
            per_class += torch.bincount(labels, minlength=CLASSES)
    print(f"detections per image: min {min(counts)} max {max(counts)} total {sum(counts)}")
    print(f"per class {per_class.tolist()} score sum {score_sum:.4f}")


if __name__ == "__main__":
    main()
