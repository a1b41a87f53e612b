"""GPU check of library-aware fixes (issue 24), transformers models from tiny configs with random weights.

    python benchmarks/gpu_library.py          # from the repository root, tdiag importable; ~2-3 minutes on an H200
    python benchmarks/gpu_library.py --cpu    # the GPT-2 part on CPU (backend aot_eager), for a dry run

1. GPT-2 training with a growing sequence length, called as `cmodel(input_ids=ids, labels=ids)`: `tdiag fix` offers
   `torch._dynamo.mark_dynamic(ids, 1)` (the guard is on transformers' `kwargs['input_ids']`) and sets
   `model.loss_type` (the `logger.warning_once` in transformers' loss selection breaks the graph); `tdiag fix --verify`
   re-runs the program with both: the breaks and the recompiles gone, the printed losses identical.
2. Llama `generate` with a static cache and the forward compiled with mode="reduce-overhead": every CUDA-graph
   finding is anchored on the user's file, and one inside transformers keeps the library line as evidence.

Prints CHECK ok / CHECK FAIL lines and figures; exits 1 on a FAIL, 0 with a SKIP line when CUDA is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpu_common import FAILURES, check, no_cuda_reason  # noqa: E402  (benchmarks/ is sys.path[0])

GPT2 = '''
import torch
from transformers import GPT2Config, GPT2LMHeadModel

DEVICE = "{device}"
torch.manual_seed(0)
config = GPT2Config(vocab_size=128, n_positions=128, n_embd=64, n_layer=2, n_head=2)
model = GPT2LMHeadModel(config).to(DEVICE)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
cmodel = torch.compile(model{backend})

for step in range(5):
    ids = torch.randint(0, 128, (4, 16 + 8 * step), device=DEVICE)
    out = cmodel(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"{{out.loss.item():.3f}}")
'''

LLAMA = '''
import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, max_position_embeddings=128)
model = LlamaForCausalLM(config).cuda().eval()
model.forward = torch.compile(model.forward, mode="reduce-overhead")
ids = torch.randint(0, 128, (1, 8), device="cuda")
with torch.no_grad():
    for _ in range(2):
        out = model.generate(ids, max_new_tokens=12, do_sample=False, cache_implementation="static")
print(out.shape[1])
'''

# the catalogue's fix: no compile of model.forward by hand; generate compiles the decoding step itself
LLAMA_FIXED = LLAMA.replace('model.forward = torch.compile(model.forward, mode="reduce-overhead")\n', "")



def env(tmp: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    e.update(TORCHINDUCTOR_CACHE_DIR=str(tmp / "cache"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
             PYTHONUNBUFFERED="1")
    return e


def project(name: str, text: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"tdiag-gpu-library-{name}-"))
    (root / f"{name}.py").write_text(text)
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, capture_output=True)
    return root


def tdiag(root: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], cwd=root, env=env(root), capture_output=True,
                          text=True, timeout=timeout)


def gpt2(device: str) -> None:
    backend = ', backend="aot_eager"' if device == "cpu" else ""
    root = project("gpt2_train", GPT2.format(device=device, backend=backend))
    t0 = time.perf_counter()
    run = tdiag(root, "run", "--no-tui", "-q", "-o", "rec", "gpt2_train.py")
    check(run.returncode == 0, f"gpt2: tdiag run exit status {run.returncode} ({time.perf_counter() - t0:.1f}s)")
    if run.returncode != 0:
        print(run.stderr[-3000:])
        return
    listing = tdiag(root, "fix", "rec", "--format", "json")
    patches = json.loads(listing.stdout)["patches"] if listing.stdout.strip() else []
    diffs = {p["codes"][0]: p.get("diff") or p.get("patch") or "" for p in patches}
    print("gpt2 patches:", sorted(diffs))
    check("mark_dynamic(ids, 1)" in diffs.get("RCP001", ""), "gpt2: RCP001 patch is torch._dynamo.mark_dynamic(ids, 1)")
    check('loss_type = "ForCausalLM"' in diffs.get("BRK004", ""),
          "gpt2: the logging break's patch sets model.loss_type (the config-side fix), not a move")
    t0 = time.perf_counter()
    verify = tdiag(root, "fix", "rec", "--verify", "--format", "json", timeout=900)
    print(f"gpt2: fix --verify took {time.perf_counter() - t0:.1f}s")
    if not verify.stdout.strip():
        check(False, "gpt2: fix --verify produced no result")
        print(verify.stderr[-3000:])
        return
    together = json.loads(verify.stdout)["verification"][0]
    before, after = together["before"], together["after"]
    for key in ("graphs", "graph_breaks", "recompiles", "compile_time_s", "run_time_s"):
        print(f"gpt2 figure: {key} before={before.get(key)} after={after.get(key)}")
    check(before["graph_breaks"] > 0 and after["graph_breaks"] == 0, "gpt2: the logging breaks are gone after the patch")
    check(before["recompiles"] > 0 and after["recompiles"] == 0, "gpt2: the recompiles are gone after mark_dynamic")
    check(bool(together["stdout_identical"]), "gpt2: printed losses identical with the patches")
    check(bool(together["ok"]), "gpt2: fix --verify ok")


def llama() -> None:
    from tdiag.analyzer import build
    from tdiag.analyzer.paths import is_library_display

    root = project("llama_generate", LLAMA)
    # the same program under plain python and under tdiag without its runtime window: whose crash is it?
    plain = subprocess.run([sys.executable, "llama_generate.py"], cwd=root, env=env(root), capture_output=True,
                           text=True, timeout=600)
    print(f"llama: plain python exit status {plain.returncode}")
    quiet = tdiag(root, "run", "--no-tui", "-q", "--no-profile", "-o", "rec-np", "llama_generate.py")
    print(f"llama: tdiag run --no-profile exit status {quiet.returncode}")
    t0 = time.perf_counter()
    run = tdiag(root, "run", "--no-tui", "-q", "-o", "rec", "llama_generate.py")
    check(run.returncode == 0, f"llama: tdiag run exit status {run.returncode} ({time.perf_counter() - t0:.1f}s)")
    if run.returncode != 0:
        print(run.stderr[-3000:])
        return
    analysis = build(str(root / "rec"))
    cgr = [f for f in analysis.findings if f.code.startswith("CGR")]
    for f in cgr:
        lib = f.library_frame
        print(f"llama finding: {f.code} at {f.path}:{f.line} library={lib.path + ':' + str(lib.line) if lib else None}"
              f" fix={f.fix!r}")
    check(bool(cgr), f"llama: a CUDA-graph finding under reduce-overhead ({len(cgr)})")
    check(all(not is_library_display(f.path) for f in analysis.findings),
          "llama: every finding anchored on the user's file (none in a library file)")
    check(any(f.library_frame is not None and "transformers/" in f.library_frame.path for f in cgr),
          "llama: the CUDA-graph skip keeps the transformers line as evidence")
    mutation = [f for f in cgr if "transformers/cache_utils.py" in (f.library_frame.path if f.library_frame else "")]
    if mutation:
        print(f"llama: catalogue fix: {mutation[0].fix}")

    fixed = project("llama_generate_fixed", LLAMA_FIXED)
    run = tdiag(fixed, "run", "--no-tui", "-q", "-o", "rec", "llama_generate_fixed.py")
    check(run.returncode == 0, f"llama (fix applied): tdiag run exit status {run.returncode}")
    if run.returncode == 0:
        after = [f for f in build(str(fixed / "rec")).findings if f.code == "CGR001"]
        print(f"llama figure: CGR001 findings with model.forward compiled by hand={len(cgr)}, "
              f"with generate compiling the decoding step={len(after)}")
        check(not [f for f in after if "mutat" in f.message], "llama (fix applied): no CUDA-graph skip for mutated inputs")


def main() -> int:
    cpu = "--cpu" in sys.argv
    if not cpu and (reason := no_cuda_reason("run with --cpu for the GPT-2 part on CPU")):
        print(reason)
        return 0
    if "--llama-only" not in sys.argv:
        gpt2("cpu" if cpu else "cuda")
    if not cpu:
        llama()
    print(f"{len(FAILURES)} check(s) failed" if FAILURES else "all checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
