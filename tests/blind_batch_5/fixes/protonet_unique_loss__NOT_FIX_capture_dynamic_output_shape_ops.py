"""NOT_FIX: capture_dynamic_output_shape_ops = True and capture_scalar_outputs = True, the loss unchanged.
Prototypical networks (Snell et al. 2017) trained on few-shot episodes, with the loss written as the popular
reference implementation (orobix/Prototypical-Networks-for-Few-shot-Learning-PyTorch, prototypical_loss.py)
writes it: the classes of the episode come from torch.unique(target), each class's support examples are found
with nonzero and averaged into a prototype, queries are scored by negative squared distance. The embedding network
and the loss are one module, compiled; backward and the optimizer step stay outside."""
import torch
import torch.nn.functional as F
from torch import nn

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)
N_WAY, N_SUPPORT, N_QUERY, DIM = 5, 5, 5, 20
NUM_CLASSES = 40

# a synthetic "omniglot": each class is a Gaussian cluster around its own centre
CLASS_CENTRES = torch.randn(NUM_CLASSES, DIM) * 1.5


def sample_episode():
    classes = torch.randperm(NUM_CLASSES)[:N_WAY]
    per_class = N_SUPPORT + N_QUERY
    x = CLASS_CENTRES[classes].repeat_interleave(per_class, 0) + torch.randn(N_WAY * per_class, DIM)
    y = classes.repeat_interleave(per_class)
    return x, y


def prototypical_loss(embeddings, target, n_support):
    classes = torch.unique(target)
    n_classes = len(classes)
    n_query = target.eq(classes[0].item()).sum().item() - n_support
    support_idxs = [target.eq(c).nonzero()[:n_support].squeeze(1) for c in classes]
    prototypes = torch.stack([embeddings[idx].mean(0) for idx in support_idxs])
    query_idxs = torch.stack([target.eq(c).nonzero()[n_support:] for c in classes]).view(-1)
    queries = embeddings[query_idxs]
    dists = torch.cdist(queries, prototypes) ** 2
    log_p_y = F.log_softmax(-dists, dim=1).view(n_classes, n_query, -1)
    target_inds = torch.arange(n_classes).view(n_classes, 1, 1).expand(n_classes, n_query, 1)
    loss = -log_p_y.gather(2, target_inds).squeeze().view(-1).mean()
    acc = log_p_y.argmax(2).eq(target_inds.squeeze(2)).float().mean()
    return loss, acc


class ProtoNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x, y):
        return prototypical_loss(self.encoder(x), y, N_SUPPORT)


def main():
    model = ProtoNet()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for episode in range(1, 61):
        x, y = sample_episode()
        loss, acc = compiled(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if episode % 20 == 0:
            print(f"episode {episode} loss {loss.item():.4f} acc {acc.item():.4f}")
    accs = [compiled(*sample_episode())[1] for _ in range(20)]
    print(f"test accuracy over 20 episodes {torch.stack(accs).mean().item():.4f}")


if __name__ == "__main__":
    main()
