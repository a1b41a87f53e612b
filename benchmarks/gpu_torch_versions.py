"""GPU check for issue 31 (tdiag on the torch its users run): the device's torch keeps tdiag's agreement with torch.

    python benchmarks/gpu_torch_versions.py

On one CUDA GPU (the lent H200 has torch 2.11, Triton 3.6, Python 3.12; no network: models are built from code):

- agreement: three programs under plain python with TORCH_TRACE (torch's own account, read by tests/oracle.py) and
  under `tdiag run`: graphs, frame compiles, graph breaks, recompiles and eager fallbacks must be equal, and each
  break at the line torch names ("3/3 agreement": all three programs agree). The programs: an Inductor MLP with a
  data-dependent break and a batch-size recompile, the same under mode="reduce-overhead" (CUDA graphs), and a small
  GPT-style block trained with SDPA attention.
- touchpoints: every private touchpoint of tracer/torch_compat.py is present on this torch (a capture with nothing
  missing: no capture problem), CUDA-graph ones included (loaded by reduce-overhead).
- cached launchers: Inductor's CachingAutotuner caches its launcher after the first steady call from torch 2.14
  (`_fast_launcher`, pytorch#180402; a launch then skips run()'s preamble). Kernels launched after many warm steps
  must still be counted, timed (device time per kernel in the runtime window) and carry their launch metadata
  (n_regs, num_warps). On a torch without the cache it checks the same on the one launch path there is, and says so.
- version notice: no "newer than the releases tdiag was tested on" line for a torch inside the tested matrix.

Prints CHECK <name>: PASS|FAIL <detail> lines and figures; exit 1 if a check failed, 0 with a message without CUDA.
Under 8 minutes on an H200 (most of it Inductor compiles).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # tests/oracle.py: torch's own account, read without tdiag

FAILURES: list[str] = []

MLP = '''
import sys, torch
torch.manual_seed(0)  # the break's branch and so the resume graphs compiled depend on the data: same data each run
mode = sys.argv[1] if len(sys.argv) > 1 else "default"
DEV = "cuda"
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)).to(DEV)

@torch.compile(mode=None if mode == "default" else mode)
def step(x):
    y = model(x)
    if y.sum() > 0:  # data-dependent: a graph break
        y = y * 2
    return torch.softmax(y, dim=-1)

for batch in (16, 16, 16, 32, 32, 32):  # 32: a recompile (or a dynamic graph)
    out = step(torch.randn(batch, 64, device=DEV))
print("done", tuple(out.shape))
'''

GPT_BLOCK = '''
import torch
torch.manual_seed(0)
DEV = "cuda"

class Block(torch.nn.Module):
    def __init__(self, d=256, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))

model = torch.nn.Sequential(*[Block() for _ in range(2)]).to(DEV, torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
compiled = torch.compile(model)
for i in range(STEPS):
    x = torch.randn(8, 128, 256, device=DEV, dtype=torch.bfloat16)
    loss = compiled(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
print("loss", round(loss.item(), 2) > -1)
'''

NOTHING_MISSING = '''
import json, sys, torch
import tdiag
from tdiag.analyzer import build
model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU()).cuda()
with tdiag.capture(sys.argv[1], deep=True):
    f = torch.compile(model, mode="reduce-overhead")
    for _ in range(4):
        f(torch.randn(8, 32, device="cuda"))
    torch.cuda.synchronize()
print(json.dumps([[p.what, p.exception, p.message] for p in build(sys.argv[1]).run.capture_problems]))
'''


DEVICE = "cpu" if "--cpu" in sys.argv else "cuda"  # --cpu: a smoke run of the agreement checks without a GPU


def on_device(program: str) -> str:
    return program.replace('DEV = "cuda"', f'DEV = "{DEVICE}"')


def check(name: str, ok: bool, detail: str) -> None:
    print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {detail}")
    if not ok:
        FAILURES.append(name)


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 420) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def agreement(tmp: Path, env: dict[str, str]) -> None:
    from oracle import read_account
    from tdiag.analyzer import build

    (tmp / "mlp.py").write_text(on_device(MLP))
    (tmp / "gpt_block.py").write_text(on_device(GPT_BLOCK.replace("STEPS", "6")))
    programs = [("mlp_break_recompile", "mlp.py", []), ("mlp_reduce_overhead", "mlp.py", ["reduce-overhead"]),
                ("gpt_block_train_sdpa", "gpt_block.py", [])]
    agreed = 0
    for name, program, args in programs:
        trace = tmp / f"trace-{name}"
        start = time.perf_counter()
        plain = run([sys.executable, program, *args], tmp, {**env, "TORCH_TRACE": str(trace)})
        plain_s = time.perf_counter() - start
        start = time.perf_counter()
        ours = run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(tmp / f"run-{name}"), program,
                    *args], tmp, env)
        ours_s = time.perf_counter() - start
        if plain.returncode != 0 or ours.returncode != 0:
            check(f"agreement_{name}", False, f"exit plain {plain.returncode} tdiag {ours.returncode}: "
                  f"{(plain.stderr or ours.stderr)[-1500:]}")
            continue
        theirs = read_account(trace, plain.stdout, plain.returncode)
        s = build(tmp / f"run-{name}").summary
        a = build(tmp / f"run-{name}")
        pairs = {"graphs": (s.graphs, theirs.graphs), "frame compiles": (s.frames_compiled, theirs.frame_compiles),
                 "breaks": (s.graph_breaks, len(theirs.breaks)), "recompiles": (s.recompiles, len(theirs.recompile_reasons)),
                 "fallbacks": (s.eager_fallbacks, theirs.failed_frames)}
        our_lines = sorted(b.site.line for b in a.breaks)
        their_lines = sorted([ln for f, ln in b["lines"] if f == program][-1] for b in theirs.breaks
                             if any(f == program for f, _ in b["lines"]))
        ok = all(x == y for x, y in pairs.values()) and our_lines == their_lines and ours.stdout == plain.stdout
        agreed += ok
        figures = ", ".join(f"{k} {x}/{y}" for k, (x, y) in pairs.items())
        check(f"agreement_{name}", ok, f"(tdiag/torch) {figures}, break lines {our_lines}/{their_lines}, "
              f"stdout {'same' if ours.stdout == plain.stdout else 'DIFFERENT'}; plain {plain_s:.1f}s, tdiag {ours_s:.1f}s")
    check("agreement_3_of_3", agreed == len(programs), f"{agreed}/{len(programs)} programs agree with torch's own trace")


def touchpoints(tmp: Path, env: dict[str, str]) -> None:
    proc = run([sys.executable, "-c", NOTHING_MISSING, str(tmp / "capture")], tmp, env)
    if proc.returncode != 0:
        check("touchpoints_present", False, proc.stderr[-1500:])
        return
    problems = json.loads(proc.stdout.strip().splitlines()[-1])
    check("touchpoints_present", problems == [], f"capture problems with nothing removed (reduce-overhead, --deep): "
          f"{problems or 'none'}")


def cached_launchers(tmp: Path, env: dict[str, str]) -> None:
    from tdiag.analyzer import build
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    has_cache = hasattr(CachingAutotuner, "_build_fast_launcher")
    print(f"CachingAutotuner caches its launcher (_fast_launcher): {has_cache}")
    (tmp / "gpt_long.py").write_text(on_device(GPT_BLOCK.replace("STEPS", "40")))
    run_dir = tmp / "run-cached"
    proc = run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "--profile-window", "10:20", "-o", str(run_dir),
                "gpt_long.py"], tmp, env)
    if proc.returncode != 0:
        check("cached_launchers", False, proc.stderr[-1500:])
        return
    a = build(run_dir)
    window = a.summary.runtime
    triton = [k for g in a.graphs for k in g.kernels if k.name.startswith("triton_")]
    timed = [k for k in triton if k.device_s]
    with_meta = [k for k in triton if k.launch.get("n_regs") is not None and k.launch.get("num_warps")]
    measured = window is not None and window.status == "measured"
    print(f"window: {getattr(window, 'status', None)}, {len(triton)} Triton kernels, {len(timed)} timed, "
          f"{len(with_meta)} with launch metadata")
    # torch takes its cached launcher only while no profiler is on (run() re-checks every call): inside the window
    # the launches go through run() again, which is what the window measures
    path = "after the launcher was cached (20 warm steps)" if has_cache else "(no launcher cache in this torch)"
    check("cached_launchers_timed", measured and bool(triton) and len(timed) == len(triton),
          f"{len(timed)}/{len(triton)} Triton kernels have device time in the window {path}")
    check("cached_launchers_metadata", bool(triton) and len(with_meta) == len(triton),
          f"{len(with_meta)}/{len(triton)} Triton kernels carry n_regs/num_warps")


def version_notice() -> None:
    import torch

    from tdiag.torch_releases import TESTED, untested_notice

    notice = untested_notice(torch.__version__)
    print(f"torch {torch.__version__}; tested matrix {', '.join(TESTED)}; notice: {notice}")
    check("version_notice", notice is None, "no untested-torch line inside the tested matrix")


def main() -> int:
    import torch

    if DEVICE == "cuda" and not torch.cuda.is_available():
        print("no CUDA device: nothing to check (run on the GPU machine; --cpu for a smoke run of the agreement)")
        return 0
    if DEVICE == "cuda":
        import triton

        print(f"torch {torch.__version__}, triton {triton.__version__}, Python {sys.version.split()[0]}, "
              f"{torch.cuda.get_device_name(0)}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)  # never the repo root: its tdiag/ folder would shadow the installed package
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE"))}
        env.update(TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor-cache"), PYTHONUNBUFFERED="1")
        version_notice()
        if DEVICE == "cuda":
            touchpoints(tmp, env)
        agreement(tmp, env)
        if DEVICE == "cuda":
            cached_launchers(tmp, env)
    print(f"\n{time.perf_counter() - started:.0f} s; "
          + ("ALL CHECKS PASSED" if not FAILURES else "CHECKS FAILED: " + ", ".join(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
