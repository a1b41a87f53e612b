"""NOT_FIX: suppress_errors does not catch the error, raised when the backward graph is compiled at loss.backward().
Fourier Neural Operator (Li et al. 2020) for a 2-D smoothing operator, with the SpectralConv2d layer as in
the reference implementation (fourier_2d.py): rfft2, complex weights applied to the lowest modes with einsum,
irfft2. The model is compiled with torch.compile (default Inductor backend) for training."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.suppress_errors = True
S = 32


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.modes1, self.modes2 = modes1, modes2
        self.scale = 1 / (in_channels * out_channels)
        self.weights1 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat))

    def compl_mul2d(self, input, weights):
        return torch.einsum("bixy,ioxy->boxy", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, :self.modes1, :self.modes2] = self.compl_mul2d(x_ft[:, :, :self.modes1, :self.modes2], self.weights1)
        out_ft[:, :, -self.modes1:, :self.modes2] = self.compl_mul2d(x_ft[:, :, -self.modes1:, :self.modes2], self.weights2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


class FNO2d(nn.Module):
    def __init__(self, modes=8, width=16):
        super().__init__()
        self.fc0 = nn.Linear(3, width)
        self.conv0 = SpectralConv2d(width, width, modes, modes)
        self.conv1 = SpectralConv2d(width, width, modes, modes)
        self.w0 = nn.Conv2d(width, width, 1)
        self.w1 = nn.Conv2d(width, width, 1)
        self.fc1 = nn.Linear(width, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, a):
        grid = self.get_grid(a.shape)
        x = self.fc0(torch.cat((a, grid), dim=-1)).permute(0, 3, 1, 2)
        x = F.gelu(self.conv0(x) + self.w0(x))
        x = self.conv1(x) + self.w1(x)
        x = x.permute(0, 2, 3, 1)
        return self.fc2(F.gelu(self.fc1(x)))

    def get_grid(self, shape):
        b, sx, sy = shape[0], shape[1], shape[2]
        gx = torch.linspace(0, 1, sx).reshape(1, sx, 1, 1).repeat(b, 1, sy, 1)
        gy = torch.linspace(0, 1, sy).reshape(1, 1, sy, 1).repeat(b, sx, 1, 1)
        return torch.cat((gx, gy), dim=-1)


def make_pair(n):
    # target operator: heat-equation smoothing of a random field, u = exp(-k|xi|^2) * a in Fourier space
    a = torch.randn(n, S, S)
    kx = torch.fft.fftfreq(S)[:, None]
    ky = torch.fft.rfftfreq(S)[None, :]
    u = torch.fft.irfft2(torch.fft.rfft2(a) * torch.exp(-40.0 * (kx ** 2 + ky ** 2)), s=(S, S))
    return a.unsqueeze(-1), u.unsqueeze(-1)


model = FNO2d()
model = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(40):
    a, u = make_pair(8)
    loss = F.mse_loss(model(a), u)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d}  mse {loss.item():.6f}")

a, u = make_pair(32)
with torch.no_grad():
    rel = ((model(a) - u).norm() / u.norm()).item()
print(f"test relative L2 error: {rel:.4f}")
