"""GPU check of kernel attribution (issue 23): transformers GPT-2 (tiny config, random weights) trained on CUDA under
`tdiag run`.

    python benchmarks/gpu_kernel_attribution.py          # from the repository root, tdiag importable; ~1-2 min on an H200
    python benchmarks/gpu_kernel_attribution.py --cpu    # the same logic on CPU (no device time: attribution checks only)

Prints the share of kernels attributed (a module path or a user line), forward and backward; per graph and pass,
the per-kernel device times summed against the device time of the kernels the graph's calls launched and, for the
forward, against the region-measured device time of the graph (within 10%); and the per-module time table.
CHECK ok / CHECK FAIL lines; exits 1 on a FAIL, 0 with a SKIP line when CUDA is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gpu_common import FAILURES, check, no_cuda_reason  # noqa: E402  (benchmarks/ is sys.path[0])

PROGRAM = '''
import torch
from transformers import GPT2Config, GPT2LMHeadModel

DEVICE = "{device}"
torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_head=4, n_embd=128, vocab_size=1000, n_positions=128, bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(config).to(DEVICE)
compiled = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range({steps}):
    ids = torch.randint(0, 1000, (8, 64), device=DEVICE)
    loss = compiled(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
'''



def main() -> int:
    cpu = "--cpu" in sys.argv
    if not cpu and (reason := no_cuda_reason()):
        print(reason)
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "train_gpt2.py"
        program.write_text(PROGRAM.format(device="cpu" if cpu else "cuda", steps=6 if cpu else 40))
        run_dir = Path(tmp) / "run"
        window = ["--no-profile"] if cpu else ["--profile-window", "20:5"]
        cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", *window, "-o", str(run_dir), str(program)]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=900)  # not the repo root: its tdiag/ folder would shadow the installed package
        check(proc.returncode == 0, f"tdiag run exit code {proc.returncode} {proc.stderr[-2000:]}")
        if proc.returncode != 0:
            return 1
        report(run_dir, cpu)
    return 1 if FAILURES else 0


def report(run_dir: Path, cpu: bool) -> None:
    from tdiag.analyzer import build
    from tdiag.reports.view import module_time_rows

    analysis = build(run_dir)
    kernels = [k for g in analysis.graphs for k in g.kernels]
    for role in ("forward", "backward"):
        ks = [k for k in kernels if k.graph == role]
        ok = [k for k in ks if k.modules or k.source_lines]
        print(f"{role}: {len(ok)}/{len(ks)} kernels attributed ({100 * len(ok) / max(len(ks), 1):.1f}%), "
              f"{sum(1 for k in ks if k.modules and k.modules[0].built_at)} with the user line that built the module")
        check(bool(ks) and len(ok) == len(ks), f"every {role} kernel carries a module path or a user line")
    if cpu:
        return
    check(analysis.summary.runtime is not None and analysis.summary.runtime.status == "measured", "window measured")
    for g in analysis.graphs:
        if g.runtime is None or not g.runtime.calls:
            check(all(k.device_s is None for k in g.kernels), f"graph {g.key.label} did not run: no kernel time")
            continue
        for role, launched in g.runtime.kernel_device_s.items():
            summed = sum(k.device_s or 0.0 for k in g.kernels if k.graph == role)
            unclaimed = g.runtime.unattributed_device_s.get(role, 0.0)
            print(f"graph {g.key.label} {role}: per-kernel sum {summed * 1e3:.3f} ms, launched by its calls "
                  f"{launched * 1e3:.3f} ms, unattributed {unclaimed * 1e3:.3f} ms")
            check(launched > 0 and abs(summed - launched) <= 0.1 * launched,
                  f"graph {g.key.label} {role}: kernel times add up to the graph's device time within 10%")
        if g.runtime.device_s and "forward" in g.runtime.kernel_device_s:
            fwd = sum(k.device_s or 0.0 for k in g.kernels if k.graph == "forward")
            print(f"graph {g.key.label} forward: per-kernel sum {fwd * 1e3:.3f} ms vs region device time "
                  f"{g.runtime.device_s * 1e3:.3f} ms")
            check(abs(fwd - g.runtime.device_s) <= 0.1 * g.runtime.device_s,
                  f"graph {g.key.label}: forward kernel times match the region-measured device time within 10%")
        externs = [k for k in g.kernels if k.kind == "extern"]
        check(not externs or any(k.device_s for k in externs), f"graph {g.key.label}: extern (cuBLAS) kernels have time")
    rows = module_time_rows(analysis)
    print(f"{'pass':9} {'module':55} {'built at':28} {'kernels':>7} {'ms':>9} {'share':>6}")
    for r in rows[:30]:
        print(f"{r.role:9} {r.module[:55]:55} {r.built_at[:28]:28} {r.kernels:7d} {r.seconds * 1e3:9.3f} {r.share:6.1%}")
    check(bool(rows), "per-module time table has rows")


if __name__ == "__main__":
    sys.exit(main())
