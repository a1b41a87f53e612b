"""GPU check of measured cost on short runs (issue 22): transformers GPT-2 (tiny config, random weights) training for
10 steps and BERT for 9 steps under `mode="reduce-overhead"`, each under a plain `tdiag run` (default window).

    python benchmarks/gpu_cost_short_runs.py          # repository root or tdiag installed; about 1-2 minutes on an H200
    python benchmarks/gpu_cost_short_runs.py --cpu    # the same logic on CPU (aot_eager, no device checks)

CHECK lines: each run gets a measured window on CUDA (a partial one labelled with its steps: the defaults measure a
10-step run), findings that run per step carry measured costs, the window's kernel time reconciles with the
profiler's kernel total within 10% (graphs + compiled backward + kernels launched outside graphs + unlinked),
device busy/idle per step is reported, and the launch-bound finding (RUN002) is printed where it applies. Prints the
figures. Exits 1 on a failed check; prints SKIP and exits 0 without CUDA (unless --cpu).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gpu_common import FAILURES, check  # noqa: E402  (benchmarks/ is sys.path[0])

PROGRAM = '''
import sys
import torch
from transformers import {config}, {model}

DEVICE = sys.argv[1]
torch.manual_seed(0)
config = {config}({config_args})
model = {model}(config).to(DEVICE)
model.train()
compiled = torch.compile(model, {compile_args})
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range({steps}):
    ids = torch.randint(0, config.vocab_size, (8, 64), device=DEVICE)
    out = compiled(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {{step}} loss {{out.loss.item():.3f}}")
'''

MODELS = {
    "gpt2_10_steps": dict(
        config="GPT2Config", model="GPT2LMHeadModel", steps=10, compile_args="",
        config_args="n_layer=2, n_embd=128, n_head=4, vocab_size=1024, n_positions=128",
    ),
    "bert_9_steps_reduce_overhead": dict(
        config="BertConfig", model="BertForMaskedLM", steps=9, compile_args='mode="reduce-overhead"',
        config_args="num_hidden_layers=2, hidden_size=128, num_attention_heads=4, intermediate_size=256, "
        "vocab_size=1024, max_position_embeddings=128",
    ),
}



def run(name: str, spec: dict, tmp: Path, device: str) -> Path | None:
    args = dict(spec)
    if device == "cpu":
        args["compile_args"] = 'backend="aot_eager"'
    (tmp / f"{name}.py").write_text(PROGRAM.format(**args))
    run_dir = tmp / f"{name}-run"
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp / "cache"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), f"{name}.py", device]
    proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    check(proc.returncode == 0, f"{name}: tdiag run exit status {proc.returncode}")
    if proc.returncode != 0:
        print(proc.stderr[-3000:])
        return None
    return run_dir


def analyse(name: str, run_dir: Path, device: str) -> None:
    from tdiag.analyzer import build
    from tdiag.reports.cost_format import cost_label, runtime_detail_lines, runtime_line

    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    runtime_events = [e for e in events if e.get("type") == "runtime"]
    a = build(run_dir)
    r = a.summary.runtime
    print(f"--- {name}")
    print(runtime_line(r))
    for line in runtime_detail_lines(r):
        print(line)
    check(r is not None and r.status == "measured" and r.device == device,
          f"{name}: window measured on {device} ({r.status if r else None}, {r.reason if r else None})")
    if r is None or r.status != "measured":
        return
    print(f"FIGURE {name}: steps {r.steps} of {r.planned_steps} (partial {r.partial}), step {r.step_function}, "
          f"{r.window_s / r.steps * 1e3:.3f} ms/step, compiled {r.compiled_s / r.steps * 1e3:.3f}, eager (findings) "
          f"{r.attributed_s / r.steps * 1e3:.3f}, eager (other) {r.unattributed_s / r.steps * 1e3:.3f} ms/step "
          f"{ {k: round(v / r.steps * 1e3, 3) for k, v in r.eager_parts.items()} }")
    check(r.steps >= 1, f"{name}: at least one measured step ({r.steps})")
    accounted = r.compiled_s + r.attributed_s + r.unattributed_s + r.guard_s + r.compile_s
    check(abs(accounted - r.window_s) <= 0.10 * r.window_s, f"{name}: host partition accounts for {accounted / r.window_s:.1%} of the window")
    per_step = [f for f in a.findings if f.family in ("BRK", "RUN") or (f.cost and f.cost.basis == "measured")]
    measured = [f for f in per_step if f.cost and f.cost.basis == "measured"]
    check(not per_step or bool(measured), f"{name}: {len(measured)} of {len(per_step)} per-step findings carry a measured cost")
    for i, f in enumerate(a.findings[:8]):
        print(f"  {i + 1}. {f.code} {f.path}:{f.line} {cost_label(f.cost)} [{f.cost.basis if f.cost else '-'}] {f.message[:90]}")
    if device != "cuda":
        return
    ev = runtime_events[0]
    total_us = sum(v[1] for v in ev["kernels"].values())
    graphs_us = sum(g["device_us"] for g in ev["graphs"].values())
    backward_us = ev["backward"]["device_us"]
    outside_us = ev.get("device_time", {}).get("outside_graphs_us", 0)
    unlinked_us = ev.get("unlinked_device_us", 0)
    parts = graphs_us + backward_us + outside_us + unlinked_us
    print(f"FIGURE {name}: profiler kernel total {total_us / 1e3:.3f} ms = graphs {graphs_us / 1e3:.3f} + compiled "
          f"backward {backward_us / 1e3:.3f} + outside graphs {outside_us / 1e3:.3f} + unlinked {unlinked_us / 1e3:.3f} "
          f"(sum {parts / 1e3:.3f} ms)")
    check(total_us > 0 and abs(parts - total_us) <= 0.10 * total_us, f"{name}: window kernel time reconciles with the profiler's total within 10%")
    check(graphs_us + backward_us > 0, f"{name}: compiled graphs' device time measured ({(graphs_us + backward_us) / 1e3:.3f} ms)")
    check(r.device_busy_s is not None, f"{name}: device busy/idle reported")
    if r.device_busy_s is not None:
        idle = r.window_s - r.device_busy_s
        print(f"FIGURE {name}: device busy {r.device_busy_s / r.steps * 1e3:.3f} ms/step, idle {idle / r.steps * 1e3:.3f} "
              f"ms/step ({idle / r.window_s:.0%} idle)")
        launch_bound = [f for f in a.findings if f.code == "RUN002"]
        print(f"FIGURE {name}: launch-bound finding: {launch_bound[0].message if launch_bound else 'none (idle < 50%)'}")
        check(bool(launch_bound) == (idle / r.window_s >= 0.5), f"{name}: RUN002 present exactly when the device idles >= 50%")


def main() -> int:
    device = "cpu" if "--cpu" in sys.argv else "cuda"
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        print("SKIP: CUDA is not available")
        return 0
    try:
        import transformers  # noqa: F401
    except ImportError:
        print("SKIP: transformers is not installed")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="tdiag-gpu-cost-short-runs-"))
    names = [n for n in MODELS if n.split("_")[0] in sys.argv] or list(MODELS)
    for name in names:
        run_dir = run(name, MODELS[name], tmp, device)
        if run_dir is not None:
            analyse(name, run_dir, device)
    print("FAILED: " + "; ".join(FAILURES) if FAILURES else "all checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
