"""NOT_FIX: keep the pointer a tensor, ptr = self.queue_ptr[0], and slice the queue with it (no int()).
MoCo v2-style self-supervised training (after facebookresearch/moco's builder.py): a query encoder, a momentum
key encoder updated with `param_k.data = param_k.data * m + param_q.data * (1 - m)`, and a queue of negative keys
with a pointer buffer, `_dequeue_and_enqueue` writing each batch's keys at `ptr = int(self.queue_ptr)`. The whole
MoCo module is compiled for training."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
D_IN, DIM, K, BATCH = 64, 32, 1280, 128


def mlp():
    return nn.Sequential(nn.Linear(D_IN, 128), nn.ReLU(), nn.Linear(128, DIM))


class MoCo(nn.Module):
    def __init__(self, dim=DIM, K=K, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = mlp()
        self.encoder_k = mlp()
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = self.queue_ptr[0]
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


def augment(x):
    return x + 0.3 * torch.randn_like(x)


def main():
    centers = torch.randn(10, D_IN) * 2
    data = centers[torch.randint(0, 10, (4096,))] + 0.5 * torch.randn(4096, D_IN)
    model = MoCo()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.encoder_q.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(3):
        perm = torch.randperm(len(data))
        for i in range(0, len(data), BATCH):
            x = data[perm[i:i + BATCH]]
            logits, labels = compiled(augment(x), augment(x))
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        acc = (logits.argmax(1) == 0).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} pos-top1 {acc:.3f} queue_ptr {int(model.queue_ptr)}")
    print(f"key/query weight gap {(model.encoder_k[0].weight - model.encoder_q[0].weight).abs().mean().item():.5f}")


if __name__ == "__main__":
    main()
