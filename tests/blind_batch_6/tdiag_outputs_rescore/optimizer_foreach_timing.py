"""Time the program's optimizer step (its own model, its optimizer class and lr) with foreach False vs True,
interleaved, grads random; also a full step (forward through the compiled fn, backward, step) is not needed:
the RUN001 finding is about the optimizer's eager time."""
import importlib.util, sys, time, torch
path, optname = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("prog", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
model = m.model if hasattr(m, "model") else m.TinyMAE()
params = [p for p in model.parameters()]
for p in params: p.grad = torch.randn_like(p)
res = {False: [], True: []}
opts = {fe: getattr(torch.optim, optname)(params, lr=1e-3, foreach=fe) for fe in (False, True)}
for rep in range(7):
    for fe in (False, True):
        o = opts[fe]
        for _ in range(20): o.step()
        t = time.perf_counter()
        for _ in range(200): o.step()
        res[fe].append((time.perf_counter() - t) / 200 * 1e3)
for fe in (False, True):
    v = sorted(res[fe]); print(f"{optname} foreach={fe}: median {v[len(v)//2]:.3f} ms/step, min {v[0]:.3f}, max {v[-1]:.3f} (7 reps x 200 steps)")
print("params:", len(params), "numel:", sum(p.numel() for p in params))
