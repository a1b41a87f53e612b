"""The library-shaped programs of tests/library_corpus on CUDA with Inductor (issue 32's GPU part).

For the programs whose libraries are pure Python wheels (transformers Trainer and generate, peft, accelerate,
Lightning) and torch.optim's compiled step, this writes a CUDA/Inductor variant of each corpus program (the same
file with the backend set to "inductor" and the device to CUDA: one source of truth for the program), runs it under
plain python and under `tdiag run`, and checks on each record what the CPU tests check:

- every finding is on a line of the user's file, and no fix names an identifier the file does not have;
- torch's deliberate optimizer break is info and by design;
- the expected finding (tests/library_corpus/expected.json) is at its line;
- the program's stdout under tdiag is the same as under plain python (floats may differ in the last digits on CUDA:
  compared to 3 significant digits, stated in the output);

then `tdiag fix --verify` on the Trainer and peft programs (the loss_type and base-model patches): verified, the
breaks or the skipped frame gone. Prints `CHECK <name>: PASS|FAIL <detail>` lines and a figures table (graphs, breaks,
recompiles, compile seconds, time per measured step). No network: models are built from configs. Needs torch with
CUDA and the packages transformers, peft, accelerate, lightning; about 6 minutes on one H200.

    python benchmarks/gpu_library_programs.py [--no-verify] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "library_corpus"

# program -> substitutions making it a CUDA + Inductor program ("DEFAULT_DEVICE": torch.set_default_device("cuda")
# after `import torch`, for programs that place nothing themselves)
VARIANTS = {
    "hf_trainer.py": [('torch_compile_backend="aot_eager"', 'torch_compile_backend="inductor"'),
                      ("use_cpu=True", "use_cpu=False")],
    "peft_lora.py": ["DEFAULT_DEVICE", ('backend="aot_eager"', 'backend="inductor"')],
    "optim_compiled_step.py": ["DEFAULT_DEVICE", ('backend="eager"', 'backend="inductor"')],
    "hf_generate.py": ["DEFAULT_DEVICE", ('backend="aot_eager"', 'backend="inductor"')],
    "accelerate_prepare.py": [("cpu=True", "cpu=False"), ('dynamo_backend="aot_eager"', 'dynamo_backend="inductor"')],
    "lightning_fit.py": [('accelerator="cpu"', 'accelerator="gpu", devices=1'), ('backend="aot_eager"', 'backend="inductor"')],
}
VERIFY = ("hf_trainer.py", "peft_lora.py")


def env() -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    e.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", PYTHONUNBUFFERED="1")
    return e


def variant(name: str) -> str:
    text = (CORPUS / "programs" / name).read_text()
    for sub in VARIANTS[name]:
        if sub == "DEFAULT_DEVICE":
            text = re.sub(r"^import torch\n", 'import torch; torch.set_default_device("cuda")  # same line: line numbers kept\n', text, count=1, flags=re.M)
            continue
        old, new = sub
        if old not in text:
            raise SystemExit(f"{name}: {old!r} not in the corpus program (the variant is out of date)")
        text = text.replace(old, new)
    return text


def check(name: str, ok: bool, detail: str) -> bool:
    print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {detail}", flush=True)
    return ok


def rounded(stdout: str) -> str:
    """Floats to 3 significant digits: CUDA kernels may change the last digits between runs."""
    return re.sub(r"-?\d+\.\d+(?:e[-+]?\d+)?", lambda m: f"{float(m.group(0)):.3g}", stdout)


def run_program(name: str, work: Path, expected: dict) -> dict:
    from tdiag.analyzer import build
    from tdiag.analyzer.suggestions.helpers.in_scope import unknown_names

    root = work / Path(name).stem
    root.mkdir()
    (root / name).write_text(variant(name))
    t0 = time.perf_counter()
    plain = subprocess.run([sys.executable, name], cwd=root, env=env(), capture_output=True, text=True, timeout=600)
    plain_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    traced = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "rec", name], cwd=root,
                            env=env(), capture_output=True, text=True, timeout=600)
    tdiag_s = time.perf_counter() - t0
    key = Path(name).stem
    if not check(f"{key}-runs", plain.returncode == 0 and traced.returncode == 0,
                 f"plain rc {plain.returncode}, tdiag rc {traced.returncode} {traced.stderr[-400:] if traced.returncode else ''}"):
        return {"name": name}
    check(f"{key}-stdout", rounded(plain.stdout) == rounded(traced.stdout),
          "stdout under tdiag equals plain python's (floats to 3 significant digits)")
    a = build(str(root / "rec"))
    source = (root / name).read_text()
    off_user = [(f.code, f.path, f.line) for f in a.findings if f.path != name]
    check(f"{key}-user-lines", not off_user, f"every finding on a line of {name}" + (f": {off_user}" if off_user else ""))
    unknown = [(f.code, sorted(unknown_names(f.fix, source))) for f in a.findings if unknown_names(f.fix, source)]
    check(f"{key}-identifiers", not unknown, "no fix names an identifier the file lacks" + (f": {unknown}" if unknown else ""))
    optimizer = [f for f in a.findings if f.family == "BRK" and f.library_frame is not None
                 and f.library_frame.path.endswith("torch/optim/optimizer.py")]
    if optimizer:
        check(f"{key}-by-design", all(f.severity == "info" and f.by_design for f in optimizer),
              "torch's optimizer break is info, by design")
    for want in expected["findings"]:
        found = [f for f in a.findings if (f.code, f.line) == (want["code"], want["line"])]
        check(f"{key}-{want['code']}-{want['line']}", bool(found),
              f"expected {want['code']} at line {want['line']}: " + (found[0].fix[:140] if found else
                                                                     str([(f.code, f.line) for f in a.findings])))
    s = a.summary
    rt = s.runtime
    step_ms = (rt.window_s / rt.steps * 1e3) if rt is not None and getattr(rt, "steps", 0) and getattr(rt, "window_s", None) else None
    return {"name": name, "root": root, "graphs": s.graphs, "breaks": s.graph_breaks, "recompiles": s.recompiles,
            "compile_s": s.compile_time_s, "step_ms": step_ms, "plain_s": plain_s, "tdiag_s": tdiag_s,
            "findings": [f"{f.code}:{f.line}:{f.severity}" for f in a.findings]}


def verify(row: dict) -> None:
    key = Path(row["name"]).stem
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]):
        subprocess.run(["git", *cmd], cwd=row["root"], check=True, capture_output=True)
    proc = subprocess.run([sys.executable, "-m", "tdiag", "fix", "rec", "--verify", "--repeat", "1", "--rounds", "1", "--format", "json"], cwd=row["root"],
                          env=env(), capture_output=True, text=True, timeout=900)
    try:
        together = json.loads(proc.stdout)["verification"][0]
    except (ValueError, KeyError, IndexError):
        check(f"{key}-fix-verify", False, f"no verification: {proc.stderr[-400:]}")
        return
    b, a = together.get("before", {}), together.get("after", {})
    check(f"{key}-fix-verify", bool(together.get("ok")),
          f"graphs {b.get('graphs')} -> {a.get('graphs')}, breaks {b.get('graph_breaks')} -> {a.get('graph_breaks')}, "
          f"recompiles {b.get('recompiles')} -> {a.get('recompiles')}, gone {together.get('gone')}, "
          f"stdout identical {together.get('stdout_identical')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-verify", action="store_true", help="skip tdiag fix --verify on the Trainer and peft programs")
    parser.add_argument("--only", nargs="*", help="program names (default: all)")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("CHECK cuda: FAIL no CUDA device")
        return 1
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    expected = json.loads((CORPUS / "expected.json").read_text())["programs"]
    work = Path(tempfile.mkdtemp(prefix="tdiag-gpu-libs-"))
    rows = []
    for name in args.only or VARIANTS:
        rows.append(run_program(name, work, expected[name]))
    if not args.no_verify and shutil.which("git"):
        for row in rows:
            if row["name"] in VERIFY and "root" in row:
                verify(row)
    print("\n| program | graphs | breaks | recompiles | compile s | ms/step (measured) | python s | tdiag run s | findings |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "graphs" not in r:
            print(f"| {r['name']} | failed | | | | | | | |")
            continue
        step = f"{r['step_ms']:.2f}" if r["step_ms"] is not None else "-"
        print(f"| {r['name']} | {r['graphs']} | {r['breaks']} | {r['recompiles']} | {r['compile_s']:.1f} | {step} | "
              f"{r['plain_s']:.1f} | {r['tdiag_s']:.1f} | {', '.join(r['findings'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
