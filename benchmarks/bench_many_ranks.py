"""Analysis of a many-rank record: `python benchmarks/bench_many_ranks.py [--ranks 64,256] [--mb-per-rank 3]`.

The rank files are real: one Inductor FSDP2 job (tests/fsdp/programs/per_block.py, 4 blocks compiled per block, two
gloo ranks, under `tdiag run --nproc-per-node 2`; or `--from DIR`, any record) gives the template, and each rank of
the benchmark's job is one of its rank files with that rank in the header. Each file is grown to Inductor size
(`--mb-per-rank`, default 3 MB: the template is ~1.3 MB) with more compiles, written as benchmarks/bench_big_record.py
writes them. As in a real job, every rank records the same generated code (the template's two ranks do: the same
output-code hashes); `--distinct-code` gives each rank's added compiles code of its own, the worst case. Every
61st rank's measured window is made 1.6x slower, so the per-rank view has outliers to call out.

A fresh subprocess then loads and builds the Analysis and the per-rank view (and with `--html` writes the HTML page,
as `tdiag report DIR -o report.html` does) and prints the time of each part and its peak RSS. Goal (issue 35): 256 ranks within 60 s and
2 GB on the 2-core machine.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_big_record import write_record  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PROGRAM = REPO / "tests" / "fsdp" / "programs" / "per_block.py"
SLOW_EVERY, SLOW_BY = 61, 1.6
PAD_FRAMES = 100_000  # the padding's frame ids start here: no compile id of the real rank file is reused
FRAME_ID = re.compile(r'("frame_id": |compile_id\\?": \\?")(\d+)')  # plain, and inside a JSON payload

CHILD = """
import json, resource, sys, time
def rss():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
t0, c0 = time.perf_counter(), cpu()
from tdiag.analyzer import build
from tdiag.analyzer.rank_view import rank_view
a = build(sys.argv[1])
t1 = time.perf_counter()
analysis_rss, analysis_cpu = rss(), cpu() - c0
view = rank_view(a)
t2 = time.perf_counter()
if sys.argv[2] != "-":
    from tdiag.reports.html import write_html
    write_html(a, sys.argv[2])
t3 = time.perf_counter()
print(json.dumps({"ranks": len(a.run.ranks), "graphs": len(a.graphs), "findings": len(a.findings),
                  "analysis_s": round(t1 - t0, 2), "analysis_cpu_s": round(analysis_cpu, 2), "rank_view_s": round(t2 - t1, 3), "html_s": round(t3 - t2, 2),
                  "total_s": round(t3 - t0, 2), "analysis_peak_rss_mb": analysis_rss, "peak_rss_mb": rss(),
                  "outliers": [o.text() for o in view.outliers][:6], "outlier_count": len(view.outliers),
                  "html_mb": round(__import__("os").path.getsize(sys.argv[2]) / 1e6, 2) if sys.argv[2] != "-" else None}))
"""


def record_template(out: Path) -> Path:
    """One real Inductor FSDP2 job of two ranks (about 1.5 min of compiling on a 2-core CPU)."""
    env = {**os.environ, "BACKEND": "inductor", "MODE": "blocks"}
    cmd = [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-o", str(out), PROGRAM.name, "12"]
    subprocess.run(cmd, cwd=PROGRAM.parent, env=env, check=True, capture_output=True, text=True)
    return out


def template_lines(directory: Path) -> list[list[str]]:
    files = sorted(directory.glob("events*.jsonl"))
    if not files:
        raise SystemExit(f"{directory}: no rank files")
    return [f.read_text(encoding="utf-8").splitlines(keepends=True) for f in files]


def write_rank(path: Path, rank: int, lines: list[str], mb: float, work: Path, distinct: bool) -> None:
    header = json.loads(lines[0])
    header.update(rank=rank, host=f"node-{rank // 8}")  # eight ranks a node
    body, exit_line = lines[1:-1], lines[-1]
    if json.loads(exit_line).get("type") != "exit":
        body, exit_line = lines[1:], None
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        for line in body:
            if rank % SLOW_EVERY == SLOW_EVERY - 1 and '"type":"runtime"' in line.replace(" ", ""):
                ev = json.loads(line)
                if ev.get("type") == "runtime" and ev.get("status") == "measured":
                    ev["window_us"] = int(ev["window_us"] * SLOW_BY)
                    ev["window_s"] = ev["window_s"] * SLOW_BY
                    line = json.dumps(ev) + "\n"
            out.write(line)
        grow = mb * 1e6 - out.tell()
        if grow > 0:  # compiles of this rank's own, with frame ids no real compile has
            pad = work / f"pad{rank}.jsonl"
            write_record(pad, grow / 1e6, seed=rank if distinct else 0)
            for line in pad.read_text(encoding="utf-8").splitlines(keepends=True)[1:-1]:
                if not line.startswith('{"type": "blob"'):
                    line = FRAME_ID.sub(lambda m: f'{m[1]}{int(m[2]) + PAD_FRAMES}', line)
                out.write(line)
            pad.unlink()
        if exit_line:
            out.write(exit_line)


def measure(ranks: int, mb: float, template: list[list[str]], work: Path, with_html: bool = False,
            distinct: bool = False) -> dict:
    job = work / f"job{ranks}"
    job.mkdir()
    for rank in range(ranks):
        write_rank(job / f"events.rank{rank}.jsonl", rank, template[rank % len(template)], mb, work, distinct)
    size = sum(p.stat().st_size for p in job.iterdir())
    if os.environ.get("BENCH_KEEP"):  # keep the job for profiling: BENCH_KEEP=DIR
        shutil.copytree(job, Path(os.environ["BENCH_KEEP"]) / job.name, dirs_exist_ok=True)
    html = str(work / f"report{ranks}.html") if with_html else "-"
    out = subprocess.run([sys.executable, "-c", CHILD, str(job), html],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    result.update(record_mb=round(size / 1e6), mb_per_rank=round(size / ranks / 1e6, 2), distinct_code=distinct,
                  html=with_html)
    shutil.rmtree(job)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="64,256")
    parser.add_argument("--mb-per-rank", type=float, default=3.0)
    parser.add_argument("--from", dest="source", type=Path, help="a record to take the rank files from")
    parser.add_argument("--distinct-code", action="store_true", help="each rank's added compiles with code of its own")
    parser.add_argument("--html", action="store_true", help="also write the HTML report (time and peak RSS with it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as d:
        work = Path(d)
        source = args.source or record_template(work / "template")
        template = template_lines(source)
        for n in (int(x) for x in args.ranks.split(",")):
            print(json.dumps(measure(n, args.mb_per_rank, template, work, args.html, args.distinct_code)), flush=True)


if __name__ == "__main__":
    main()
