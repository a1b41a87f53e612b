"""GPU check of the crash capture (issue 21): a program that CUDA graphs stop, and the fix tdiag patches in.

A small MLP compiled with ``mode="reduce-overhead"`` is called twice per iteration and the first call's output is
read after the second call replayed the graph: torch raises "accessing tensor output of CUDAGraphs that has been
overwritten by a subsequent run". The script runs it under plain python (the oracle: torch's own exception) and
under ``tdiag run`` (same exit code, same traceback; the first finding CRS007 on the compiled call's line), then
``tdiag fix RECORD --verify`` (the patch: ``torch.compiler.cudagraph_mark_step_begin()`` at the top of the loop)
and checks that the patched program runs to its end, and that plain python agrees.

    python benchmarks/gpu_crash.py              # about a minute on an H200
    python benchmarks/gpu_crash.py --kept       # an output kept across iterations: the .clone() candidate
    python benchmarks/gpu_crash.py --cpu-smoke  # the same plumbing on a CPU crash (fullgraph branch)

Prints CHECK lines and FIGURE lines (time to the crash, tdiag's overhead to it, the patched program's time).
Exits 1 if a check failed; prints SKIP and exits 0 without CUDA.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpu_common import FAILURES, check  # noqa: E402  (benchmarks/ is sys.path[0])

# A small MLP compiled with CUDA graphs; each program below adds its loop.
CUDA_GRAPHED_MLP = '''
import torch


class Block(torch.nn.Module):
    def __init__(self, dim=512):
        super().__init__()
        self.fc1 = torch.nn.Linear(dim, dim)
        self.fc2 = torch.nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = torch.compile(Block().cuda().eval(), mode="reduce-overhead")
x = torch.randn(64, 512, device="cuda")
total = 0.0
'''

GPU_PROGRAM = CUDA_GRAPHED_MLP + '''with torch.no_grad():
    for step in range(6):
        h1 = model(x)  # SITE: the compiled call whose output is read after the next replay
        h2 = model(h1 * 0.5)
        total += float((h1 + h2).sum())
print(f"total {total:.3f}")
'''

# An output kept across iterations: marking each iteration as a step does not help (the previous step's output is
# overwritten by this step's replay); the next candidate, a .clone() of the kept output, does.
KEPT_PROGRAM = CUDA_GRAPHED_MLP + '''prev = None
with torch.no_grad():
    for step in range(6):
        out = model(x * (step + 1))  # SITE: the compiled call whose output is kept into the next iteration
        if prev is not None:
            total += float((out - prev).abs().sum())
        prev = out
print(f"total {total:.3f}")
'''

CPU_PROGRAM = '''
import torch


def step(x):
    h = x * 2
    if h.sum() > 0:  # SITE: a data-dependent branch under fullgraph=True
        return h + 1
    return h - 1


compiled = torch.compile(step, backend="eager", fullgraph=True)
total = 0.0
for _ in range(3):
    total += float(compiled(torch.ones(4)).sum())
print(f"total {total:.3f}")
'''

GLOG = re.compile(r"^[EWI]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ", re.M)
SUMMARY_RULE = "tdiag: what torch.compile did"


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return done, time.perf_counter() - started


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if marker in text)


def program_stderr(stderr: str) -> str:
    head, found, _ = stderr.partition(SUMMARY_RULE)
    return GLOG.sub("", head[: head.rfind("\n")] if found else head)


def main() -> int:
    cpu = "--cpu-smoke" in sys.argv
    kept = "--kept" in sys.argv  # the output kept across iterations: the second candidate (.clone()) must be kept
    import torch

    if not cpu and not torch.cuda.is_available():
        print("SKIP gpu_crash: CUDA is not available (run with --cpu-smoke for the CPU plumbing check)")
        return 0
    from tdiag.analyzer import build

    device = "cpu" if cpu else torch.cuda.get_device_name(0)
    print(f"gpu_crash: torch {torch.__version__}, {device}")
    source, code, exception, says = (
        (CPU_PROGRAM, "CRS001", "torch._dynamo.exc.Unsupported", "Data-dependent branching") if cpu else
        (KEPT_PROGRAM if kept else GPU_PROGRAM, "CRS007", "RuntimeError",
         "accessing tensor output of CUDAGraphs that has been overwritten"))
    tmp = Path(tempfile.mkdtemp(prefix="tdiag-crash-"))
    project = tmp / "project"
    project.mkdir()
    (project / "generate.py").write_text(source)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp / "inductor-cache")
    env["PYTHONUNBUFFERED"] = "1"

    # each run compiles cold: Inductor warns (TF32, ...) only when it really compiles, so a run that hits the
    # cache the other one filled prints less on stderr for reasons of its own
    plain, plain_s = run([sys.executable, "generate.py"], project, {**env, "TORCHINDUCTOR_CACHE_DIR": str(tmp / "c1")})
    check(plain.returncode == 1 and f"\n{exception}: " in plain.stderr and says in plain.stderr,
          f"plain python stops with {exception}: {says}... (exit {plain.returncode}; "
          f"last line: {plain.stderr.strip().splitlines()[-1][:200] if plain.stderr.strip() else ''!r})")
    record = tmp / "record"
    traced, traced_s = run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(record), "generate.py"],
                           project, {**env, "TORCHINDUCTOR_CACHE_DIR": str(tmp / "c2")})
    check(traced.returncode == plain.returncode, f"tdiag run keeps the exit code ({traced.returncode})")
    check(traced.stdout == plain.stdout, "tdiag run keeps stdout")
    same_stderr = program_stderr(traced.stderr) == GLOG.sub("", plain.stderr)
    check(same_stderr, "tdiag run keeps the traceback (stderr)")
    if not same_stderr:
        import difflib

        print("".join(difflib.unified_diff(GLOG.sub("", plain.stderr).splitlines(True),
                                           program_stderr(traced.stderr).splitlines(True), "python", "tdiag run")))
    if not (record / "events.jsonl").exists():
        print(traced.stderr[-4000:])
        check(False, "tdiag run wrote a record")
        return 1
    analysis = build(record)
    first = analysis.findings[0] if analysis.findings else None
    expected_line = line_of(source, "# SITE")
    check(first is not None and (first.code, first.path, first.line) == (code, "generate.py", expected_line),
          f"first finding {code} at generate.py:{expected_line} "
          f"(got {(first.code, first.path, first.line) if first else None})")
    if first is not None:
        print(f"   {first.code} {first.path}:{first.line} {first.message}\n   fix: {first.fix}")
    crash = analysis.summary.crash
    check(crash is not None and crash.caused_by_torch, f"summary.crash set ({crash.kind if crash else None})")
    check(SUMMARY_RULE in traced.stderr and "program stopped: " in " ".join(traced.stderr.split()),
          "the console summary says the program stopped")

    fix, fix_s = run([sys.executable, "-m", "tdiag", "fix", str(record), "--verify", "--format", "json"], project, env)
    try:
        data = json.loads(fix.stdout)
    except ValueError:
        print(fix.stdout[-2000:], fix.stderr[-4000:])
        data = {"patches": [], "verification": []}
    patches = [p for p in data.get("patches", []) if code in p.get("codes", [])]
    check(len(patches) == 1, f"one {code} patch ({[p.get('title') for p in data.get('patches', [])]})")
    if patches:
        print("   patch:\n" + "\n".join("     " + ln for ln in patches[0]["patch"].splitlines()))
    results = data.get("verification") or [{}]
    # the last set kept (a later round's candidate where the first did not pay), else the first measured
    result = next((r for r in reversed(results) if r.get("kept")), results[0])
    if kept:
        titles = [f"round {r.get('round')}: {r.get('label')} kept={r.get('kept')} {r.get('problems')}" for r in results]
        print("   rounds:\n" + "\n".join("     " + t for t in titles))
        kept_titles = [p.get("title", "") for p in data.get("kept") or []]
        check(any("Clone" in t for t in kept_titles),
              f"the kept patch is the .clone() candidate, after marking the step did not pay ({kept_titles})")
    check(bool(result.get("ok")) and bool(result.get("completed")),
          f"tdiag fix --verify: the patched program runs to its end ({result.get('problems')}, "
          f"exit {result.get('before', {}).get('exit_code')} -> {result.get('after', {}).get('exit_code')})")
    check(code in result.get("gone", []), f"{code} gone after the patch ({result.get('gone')}, new {result.get('new')})")

    patched_seconds = None
    if patches and not kept:  # the patched program under plain python: it must complete without tdiag too
        # (--kept: the kept patch is a later round's, a diff against the text round 1 left: not re-applied here)
        fixed = tmp / "fixed"
        fixed.mkdir()
        (fixed / "generate.py").write_text(source)
        applied = subprocess.run(["git", "apply", "-p1", "-"], cwd=fixed, input=patches[0]["patch"], text=True,
                                 capture_output=True)
        if applied.returncode != 0:  # no git: apply the one added line by hand
            print(f"   git apply failed ({applied.stderr.strip()}); skipping the plain-python re-run")
        else:
            again, patched_seconds = run([sys.executable, "generate.py"], fixed, env)
            check(again.returncode == 0 and again.stdout.startswith("total "),
                  f"the patched program completes under plain python (exit {again.returncode}, {again.stdout.strip()!r})")
    print(f"FIGURE plain python to the crash: {plain_s:.2f} s; under tdiag run (with its summary): {traced_s:.2f} s")
    print(f"FIGURE tdiag fix --verify (patch, re-run under tdiag, compare): {fix_s:.2f} s")
    if patched_seconds is not None:
        print(f"FIGURE patched program, plain python, to its end: {patched_seconds:.2f} s")
    print(f"\n{'ALL CHECKS PASSED' if not FAILURES else 'CHECKS FAILED: ' + '; '.join(FAILURES)}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
