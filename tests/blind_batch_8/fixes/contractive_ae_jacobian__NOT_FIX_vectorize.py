"""NOT_FIX: jacobian(..., vectorize=True) (batched vector-Jacobian products), still torch.autograd.functional.
Contractive autoencoder (Rifai et al. 2011): the loss adds the squared Frobenius norm of the encoder's
Jacobian, computed per sample with torch.autograd.functional.jacobian(create_graph=True) as forum answers
show. The whole loss function is compiled."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.functional import jacobian

torch.manual_seed(0)
IN, CODE, LAMBDA = 20, 6, 0.1

encoder = nn.Sequential(nn.Linear(IN, 32), nn.Tanh(), nn.Linear(32, CODE), nn.Tanh())
decoder = nn.Sequential(nn.Linear(CODE, 32), nn.Tanh(), nn.Linear(32, IN))


@torch.compile(backend="aot_eager")
def cae_loss(x):
    code = encoder(x)
    recon = F.mse_loss(decoder(code), x)
    jac_penalty = 0.0
    for xi in x:
        J = jacobian(encoder, xi, create_graph=True, vectorize=True)
        jac_penalty = jac_penalty + J.pow(2).sum()
    return recon + LAMBDA * jac_penalty / x.shape[0], recon


def main():
    basis = torch.randn(CODE, IN)
    data = torch.tanh(torch.randn(1024, CODE) @ basis) + 0.05 * torch.randn(1024, IN)
    params = list(encoder.parameters()) + list(decoder.parameters())
    opt = torch.optim.Adam(params, lr=2e-3)
    for epoch in range(6):
        total, total_recon = 0.0, 0.0
        for i in range(0, len(data), 64):
            loss, recon = cae_loss(data[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            total_recon += recon.item()
        print(f"epoch {epoch}: loss {total / 16:.4f} reconstruction {total_recon / 16:.4f}")


if __name__ == "__main__":
    main()
