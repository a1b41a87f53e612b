"""Runs the program's training loop twice, eager and with both nets compiled (aot_eager), and prints the largest
absolute difference over all parameters and spectral-norm buffers at a few iterations (written for summary.md)."""
import os, copy, torch, importlib.util, torch.nn.functional as F
spec = importlib.util.spec_from_file_location("sn", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "programs", "sngan_spectral_norm.py"))
sn = importlib.util.module_from_spec(spec); spec.loader.exec_module(sn)
def run(compiled):
    torch.manual_seed(0)
    G, D = sn.Generator(), sn.Discriminator()
    Gc = torch.compile(G, backend="aot_eager") if compiled else G
    Dc = torch.compile(D, backend="aot_eager") if compiled else D
    og = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.9)); od = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.9))
    snaps = {}
    for it in range(150):
        real = sn.sample_ring(128); fake = Gc(torch.randn(128, 16)).detach()
        dl = F.relu(1.0 - Dc(real)).mean() + F.relu(1.0 + Dc(fake)).mean()
        od.zero_grad(); dl.backward(); od.step()
        gl = -Dc(Gc(torch.randn(128, 16))).mean()
        og.zero_grad(); gl.backward(); og.step()
        if it in (0, 1, 2, 5, 10, 50, 100, 149):
            snaps[it] = [p.detach().clone() for p in list(G.parameters()) + list(D.parameters())] + [b.clone() for b in D.buffers()]
    return snaps
a = run(False); b = run(True)
for it in a:
    print(it, max((x - y).abs().max().item() for x, y in zip(a[it], b[it])))
