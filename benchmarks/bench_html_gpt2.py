"""HTML report size for a real GPT-2 (124M) training run under Inductor (issue 16's "GPT-2-sized" target: <= 2.5 MB).

    python benchmarks/bench_html_gpt2.py      # needs transformers (the `corpus` extra); ~10-30 min of Inductor on CPU

Runs two training steps of a randomly initialised GPT-2 (no download) under `tdiag run --html`, then prints the page
size as written (payloads packed) and as it would be unpacked (plain JSON and plotly.js, the former format).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAM = """
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config())
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
step = torch.compile(model)
for i in range(2):
    ids = torch.randint(0, 50257, (2, 64))
    loss = step(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {i}: loss {loss.item():.3f}")
"""
BUDGET_MB = 2.5


def main() -> int:
    from tdiag.analyzer import build
    from tdiag.reports.html.render import render

    with tempfile.TemporaryDirectory() as tmp:
        program, run, page = Path(tmp) / "train_gpt2.py", Path(tmp) / "run", Path(tmp) / "report.html"
        program.write_text(PROGRAM)
        subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run), "--html", str(page),
                        str(program)], cwd=tmp, check=True)
        analysis = build(run)
        packed = page.stat().st_size / 1e6
        unpacked = len(render(analysis, compress=False).encode()) / 1e6
    kernels = sum(len(g.kernels) for g in analysis.graphs)
    print(f"GPT-2 training run: {len(analysis.graphs)} graphs, {kernels} kernels, {len(analysis.findings)} findings")
    print(f"page {packed:.2f} MB (unpacked {unpacked:.2f} MB); budget <= {BUDGET_MB} MB: "
          f"{'met' if packed <= BUDGET_MB else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
