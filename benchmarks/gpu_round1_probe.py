"""Why a re-run of GPT-2 after `tdiag fix`'s first round takes 67-95 s on the H200 when the program as written takes
20-25 s (issue 41: the fix flow within 300 s).

Round 1 on gpt2_train kept: the transformers logger knob, ``capture_scalar_outputs = True`` (the ``.item()`` read
inside the step), ``print`` replayed after the graph (``reorderable_logging_functions``) and
``mark_dynamic(ids, 1)``. This probe runs, in one Inductor cache shared as the fix flow shares it, plain python on:
the program as written, the hand fix, the round-1 file, and the round-1 file without each of its two heavy parts
(``capture_scalar_outputs``; ``mark_dynamic``), then the round-1 file once more under cProfile, plain and under
``tdiag run``. For each run: the wall time, every step's time (the program's own timer) and torch's own compile
metrics from its structured trace (TORCH_TRACE): Dynamo, AOTAutograd and Inductor seconds, Triton compile seconds,
FX-cache outcomes. Writes ``probe.jsonl`` and the ``.prof`` files to $OUT as it goes; prints PROBE lines.

    python benchmarks/gpu_round1_probe.py            # about 4 minutes on an H200
    python benchmarks/gpu_round1_probe.py --device cpu --backend inductor
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "ceiling_programs"

# the lines round 1 added to gpt2_train.py (tdiag fix --apply on CPU, 2026-12-05), each tagged by what it is
ROUND1_LINES = {
    "import torch\n": "import torch\n"
    "torch._dynamo.config.reorderable_logging_functions.add(print)\n"
    "torch._dynamo.config.capture_scalar_outputs = True  # SCALAR\n",
    "from transformers import GPT2Config, GPT2LMHeadModel\n": "from transformers import GPT2Config, GPT2LMHeadModel\n"
    "import logging\n"
    'torch._dynamo.config.ignore_logger_methods.add(logging.getLogger("transformers.modeling_utils").warning_once)\n',
    "        timer.start()\n": "        timer.start()\n        torch._dynamo.mark_dynamic(ids, 1)  # DYNAMIC\n",
}

METRIC_KEYS = (
    "entire_frame_compile_time_s", "backend_compile_time_s", "inductor_compile_time_s", "code_gen_time_s",
    "dynamo_cumulative_compile_time_us", "aot_autograd_cumulative_compile_time_us",
    "inductor_cumulative_compile_time_us", "inductor_code_gen_cumulative_compile_time_us",
    "triton_compile_time_us", "runtime_triton_autotune_time_us", "runtime_cudagraphify_time_us",
    "fx_graph_cache_hit_count", "fx_graph_cache_miss_count", "fx_graph_cache_bypass_count",
    "aot_autograd_cache_hit_count", "aot_autograd_cache_miss_count", "aot_autograd_cache_bypass_count",
    "graph_op_count", "guard_count", "fail_type", "compile_id", "is_forward", "dynamo_config", "restart_reasons",
)


def round1_text(drop: tuple[str, ...] = ()) -> str:
    text = (PROGRAMS / "gpt2_train.py").read_text()
    for old, new in ROUND1_LINES.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    lines = [line for line in text.splitlines(keepends=True) if not any(f"# {tag}" in line for tag in drop)]
    return "".join(lines)


def compile_metrics(trace_dir: Path) -> list[dict]:
    """torch's compilation_metrics (and bwd_compilation_metrics) events from the structured trace."""
    found = []
    for path in glob.glob(str(trace_dir / "*.log")):
        with open(path, errors="replace") as f:
            for line in f:
                start = line.find("{")
                if start < 0 or "compilation_metrics" not in line[:start + 60]:
                    continue
                try:
                    event = json.loads(line[start:])
                except ValueError:
                    continue
                for kind in ("compilation_metrics", "bwd_compilation_metrics"):
                    if kind in event:
                        metrics = event[kind]
                        # every scalar torch reports (the names move between releases), the known ones first
                        kept = {k: v for k, v in metrics.items()
                                if isinstance(v, (int, float, bool)) or (isinstance(v, str) and len(v) < 300)}
                        found.append({"kind": kind, **{k: metrics.get(k) for k in METRIC_KEYS if k != "dynamo_config"},
                                      **kept})
    return found


def summarise(metrics: list[dict]) -> dict:
    total: dict[str, float] = {}
    for m in metrics:
        for key, value in m.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in ("graph_op_count", "guard_count"):
                total[key] = round(total.get(key, 0) + value, 3)
    total["compiles"] = sum(m["kind"] == "compilation_metrics" for m in metrics)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    out = Path(os.environ.get("OUT") or ".")
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "probe.jsonl", "a")
    work = Path(tempfile.mkdtemp(prefix="tdiag-round1-probe-"))
    shutil.copy(PROGRAMS / "_timing.py", work / "_timing.py")
    shutil.copy(PROGRAMS / "gpt2_train.py", work / "written.py")
    shutil.copy(PROGRAMS / "gpt2_train_fixed.py", work / "fixed.py")
    (work / "round1.py").write_text(round1_text())
    (work / "round1_no_scalar.py").write_text(round1_text(drop=("SCALAR",)))
    (work / "round1_static.py").write_text(round1_text(drop=("DYNAMIC",)))
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / "inductor-cache"), PYTHONUNBUFFERED="1")
    tdiag = [sys.executable, "-m", "tdiag", "run"]
    # the most telling first: a run the budget cuts loses the least
    runs = [
        ("written", [], "written.py"), ("round1", [], "round1.py"),
        ("round1-tdiag-cprofile", ["-m", "cProfile", "-o", str(out / "round1_tdiag.prof"), "-m", "tdiag", "run"],
         "round1.py"),
        ("round1-cprofile", ["-m", "cProfile", "-o", str(out / "round1_plain.prof")], "round1.py"),
        ("round1_no_scalar", [], "round1_no_scalar.py"), ("round1_static", [], "round1_static.py"),
        ("fixed", [], "fixed.py"), ("written-tdiag", tdiag[1:], "written.py"),
    ]
    for label, prefix, program in runs:
        trace = work / f"trace-{label}"
        timing = work / f"timing-{label}.json"
        run_env = dict(env, TORCH_TRACE=str(trace), CEILING_TIMING_FILE=str(timing))
        command = [sys.executable, *prefix, program, "--device", args.device, "--backend", args.backend]
        started = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=work, env=run_env, capture_output=True, text=True, timeout=args.timeout)
            rc, tail = proc.returncode, (proc.stdout + proc.stderr)[-1500:]
        except subprocess.TimeoutExpired:
            rc, tail = "timeout", ""
        wall = round(time.perf_counter() - started, 1)
        steps = json.loads(timing.read_text()) if timing.exists() else {}
        metrics = compile_metrics(trace)
        row = {"label": label, "rc": rc, "wall_s": wall, "steps": steps.get("samples_s"),
               "step_s": steps.get("step_s"), "compile": summarise(metrics), "metrics": metrics,
               "tail": tail if rc != 0 else tail[-300:]}
        log.write(json.dumps(row) + "\n")
        log.flush()
        total = row["compile"]
        samples = steps.get("samples_s") or []
        slow = sorted(((s, i) for i, s in enumerate(samples)), reverse=True)[:4]
        print(f"PROBE {label}: rc {rc} wall {wall}s compiles {total.get('compiles')} "
              f"frame {total.get('entire_frame_compile_time_s')}s backend {total.get('backend_compile_time_s')}s "
              f"inductor {total.get('inductor_compile_time_s')}s triton {total.get('triton_compile_time_us')}us "
              f"fx hit/miss {total.get('fx_graph_cache_hit_count')}/{total.get('fx_graph_cache_miss_count')} "
              f"slowest steps {[(i, round(s, 3)) for s, i in slow]}", flush=True)
        if rc != 0:
            print(tail[-800:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
