"""NOT_FIX: torch._dynamo.config.compiled_autograd = True (what the break message names), line added after the imports.
Grad-CAM the way most tutorials write it: a forward hook stores the target layer's activations and a
register_full_backward_hook stores the gradient flowing out of it; the CNN is compiled for speed, then each image's
heat map is the ReLU of the gradient-weighted sum of the activation channels."""
import torch
import torch.nn.functional as F
from torch import nn
torch._dynamo.config.compiled_autograd = True

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        h = self.features(x)
        return self.head(h.mean((2, 3)))


class GradCAM:
    def __init__(self, model, target_layer):
        self.model = model
        self.activations = None
        self.gradients = None
        target_layer.register_forward_hook(self.save_activation)
        target_layer.register_full_backward_hook(self.save_gradient)

    def save_activation(self, module, inputs, output):
        self.activations = output

    def save_gradient(self, module, grad_input, grad_output):
        self.gradients = grad_output[0]

    def __call__(self, x, class_idx=None):
        logits = self.model(x)
        if class_idx is None:
            class_idx = logits.argmax(1)
        score = logits.gather(1, class_idx[:, None]).sum()
        self.model.zero_grad()
        score.backward()
        weights = self.gradients.mean((2, 3), keepdim=True)
        cam = F.relu((weights * self.activations).sum(1))
        cam = cam / (cam.amax((1, 2), keepdim=True) + 1e-8)
        return F.interpolate(cam[:, None], size=x.shape[-2:], mode="bilinear", align_corners=False)[:, 0], class_idx


def main():
    model = SmallCNN().eval()
    compiled = torch.compile(model, backend="aot_eager")
    cam = GradCAM(compiled, model.features[6])
    for batch in range(6):
        images = torch.randn(8, 3, 32, 32)
        heat, cls = cam(images)
        peak = heat.flatten(1).argmax(1)
        print(f"batch {batch} classes {cls.tolist()} mean heat {heat.mean().item():.4f} "
              f"peak pixel of image 0 {divmod(peak[0].item(), 32)}")


if __name__ == "__main__":
    main()
