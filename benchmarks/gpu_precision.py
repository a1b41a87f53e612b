"""GPU check for issue 12 (findings a user can trust): vendor kernels are not flagged as fallbacks.

    python benchmarks/gpu_precision.py

Runs two real third-party models under `tdiag run` with Inductor on CUDA (a transformers GPT-2 with SDPA attention
and a timm ResNet-18, both random init, a few training steps), then reads the analysis (`tdiag report --format json`)
and checks: the attention and convolution kernels are in the kernel table, and no LOW001 finding names them.
Prints the kernels by kind and the findings; CHECK lines; exit 1 if a check failed, 0 with a message without CUDA.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gpu_common import FAILURES, check, no_cuda_reason  # noqa: E402  (benchmarks/ is sys.path[0])

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = REPO / "benchmarks" / "gpu_programs"
VENDOR_WORDS = ("attention", "convolution", "sdpa", "cudnn", "flash", "efficient")


def run_one(name: str, module_needed: str) -> None:
    try:
        __import__(module_needed)
    except ImportError:
        print(f"SKIP {name}: {module_needed} is not installed")
        return
    out = Path(tempfile.mkdtemp(prefix=f"tdiag-{name}-"))
    env = dict(os.environ, HF_HUB_OFFLINE="1", TORCHINDUCTOR_CACHE_DIR=str(out / "cache"))
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(out / "run"), str(PROGRAMS / f"{name}.py")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=out)  # not the repo root
    print(f"== {name}: exit {proc.returncode}\n{proc.stdout[-800:]}{proc.stderr[-1500:]}")
    check(proc.returncode == 0, f"{name}: program ran to the end under tdiag run")
    rep = subprocess.run([sys.executable, "-m", "tdiag", "report", str(out / "run"), "--format", "json"],
                         capture_output=True, text=True, timeout=600, cwd=out)
    data = json.loads(rep.stdout)
    kernels = [k for g in data["graphs"] for k in g.get("kernels", [])]
    vendor = [k for k in kernels if any(w in k["name"].lower() for w in VENDOR_WORDS)]
    by_kind: dict[str, int] = {}
    for k in kernels:
        by_kind[k["kind"]] = by_kind.get(k["kind"], 0) + 1
    print(f"kernels by kind: {json.dumps(by_kind)}")
    print("vendor kernels: " + ", ".join(sorted({k['name'] for k in vendor})[:12]))
    for f in data["findings"][:12]:
        print(f"  {f['severity']:7} {f['code']} {f['path']}:{f['line']} {f['message'][:110]}")
    check(bool(vendor), f"{name}: attention/convolution kernels recorded ({len(vendor)})")
    low001 = [f for f in data["findings"] if f["code"] == "LOW001"]
    flagged = [f for f in low001 if any(w in json.dumps(f).lower() for w in VENDOR_WORDS)]
    check(not flagged, f"{name}: no LOW001 on attention/convolution kernels ({len(low001)} LOW001 in all)")
    library = [f for f in data["findings"] if f["path"].startswith("<")]
    check(not library, f"{name}: every finding on a user line ({len(library)} anchored in library/generated code)")


def main() -> int:
    if reason := no_cuda_reason("this script is for the lent GPU machine"):
        print(reason)
        return 0
    run_one("hf_sdpa_train", "transformers")
    run_one("timm_cnn_train", "timm")
    print("ALL CHECKS PASSED" if not FAILURES else f"{len(FAILURES)} CHECK(S) FAILED")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
