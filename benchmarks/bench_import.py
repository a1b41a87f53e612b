"""`tdiag import` + `tdiag report --format json` against tlparse on one TORCH_TRACE log (budget: within 2x of tlparse).

Run with plain python:  python benchmarks/bench_import.py [--log FILE] [--size-mb 100] [--keep DIR]

Without --log, a real log is written first by running tests/imports/programs/breaks_and_recompile.py with
TORCH_TRACE set. The log is then replicated up to --size-mb, each copy with its frame ids renumbered so that the
copies read as further compiles of one process (payloads and their md5s are untouched). Every tool runs as its own
process; wall time and peak memory (max RSS) are printed for each. tlparse comes from `pip install tlparse`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "imports" / "programs" / "breaks_and_recompile.py"
BUDGET = 2.0
# Prints peak RSS of the one child it runs: wall time and memory of exactly that tool.
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter(); rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(rc, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, help="a TORCH_TRACE log to start from (default: generate one)")
    parser.add_argument("--size-mb", type=float, default=100.0, help="replicate the log up to this size")
    parser.add_argument("--keep", type=Path, help="keep the big log and outputs in this directory")
    opts = parser.parse_args()
    tlparse = shutil.which("tlparse") or str(Path(sys.executable).with_name("tlparse"))
    if not Path(tlparse).exists():
        print("tlparse is not installed (pip install tlparse): cannot compare", file=sys.stderr)
        return 2
    work = Path(opts.keep or tempfile.mkdtemp(prefix="bench-import-"))
    work.mkdir(parents=True, exist_ok=True)
    base = opts.log or generate_log(work)
    big = work / "dedicated_log_torch_trace_big.log"
    copies = replicate(base, big, int(opts.size_mb * 1e6))
    size_mb = big.stat().st_size / 1e6
    print(f"log: {size_mb:.1f} MB ({copies} renumbered copies of {base.name}, {base.stat().st_size / 1e6:.2f} MB)")

    rows = [
        ("tdiag import", [sys.executable, "-m", "tdiag", "import", str(big), "-o", str(work / "record"), "-q"]),
        ("tdiag report --format json", [sys.executable, "-m", "tdiag", "report", str(work / "record"), "--format", "json",
                                        "-o", str(work / "analysis.json")]),
        ("tlparse", [tlparse, str(big), "-o", str(work / "tl_out"), "--overwrite", "--no-browser"]),
    ]
    shutil.rmtree(work / "record", ignore_errors=True)
    results = {}
    for label, cmd in rows:
        rc, wall, rss_kb = measure(cmd)
        results[label] = wall
        print(f"{label:28s} {wall:7.2f} s   peak RSS {rss_kb / 1024:7.0f} MB   exit {rc}   ({size_mb / wall:5.1f} MB/s)")
    ours = results["tdiag import"] + results["tdiag report --format json"]
    ratio = ours / results["tlparse"]
    print(f"{'tdiag import + report':28s} {ours:7.2f} s   = {ratio:.2f}x tlparse (budget {BUDGET:.1f}x): "
          + ("within budget" if ratio <= BUDGET else "OVER BUDGET"))
    summary = json.loads((work / "analysis.json").read_text())["summary"]
    print(f"analysis: {summary['frames_compiled']} compiles, {summary['graph_breaks']} graph breaks, "
          f"{summary['recompiles']} recompiles")
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ratio <= BUDGET else 1


def measure(cmd: list[str]) -> tuple[int, float, int]:
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, check=True)
    rc, wall, rss = out.stdout.split()
    return int(rc), float(wall), int(rss)


def generate_log(work: Path) -> Path:
    trace_dir = work / "trace"
    env = {**os.environ, "TORCH_TRACE": str(trace_dir)}
    t = time.perf_counter()
    subprocess.run([sys.executable, str(FIXTURE)], env=env, check=True, stdout=subprocess.DEVNULL, cwd=FIXTURE.parent)
    print(f"generated a real log in {time.perf_counter() - t:.1f} s")
    return next(trace_dir.glob("dedicated_log_torch_trace*.log"))


def replicate(base: Path, target: Path, size: int) -> int:
    """Write copies of ``base`` until ``size`` bytes, frame ids shifted per copy so compiles stay distinct."""
    events = parse_blocks(base)
    span = 1 + max((m.get("frame_id") or 0 for _, m, _ in events if m is not None), default=0)
    written, copy = 0, 0
    with open(target, "w", encoding="utf-8", newline="\n") as out:
        while written < size:
            for prefix, meta, rest in events:
                if meta is None:
                    text = rest
                else:
                    if copy and "artifact" in meta and meta["artifact"].get("name") == "torch_version":
                        continue
                    text = prefix + json.dumps(shift(meta, copy * span)) + "\n" + rest
                out.write(text)
                written += len(text)
            copy += 1
    return copy


def shift(meta: dict, offset: int) -> dict:
    if not offset or meta.get("frame_id") is None:
        return meta
    meta = {**meta, "frame_id": meta["frame_id"] + offset}
    metrics = meta.get("compilation_metrics")
    if isinstance(metrics, dict) and isinstance(metrics.get("compile_id"), str) and "/" in metrics["compile_id"]:
        frame, _, attempt = metrics["compile_id"].partition("/")
        if frame.isdigit():
            meta["compilation_metrics"] = {**metrics, "compile_id": f"{int(frame) + offset}/{attempt}"}
    return meta


def parse_blocks(path: Path) -> list[tuple[str, dict | None, str]]:
    """(glog prefix, envelope, payload lines) per event; lines that are not envelopes kept verbatim."""
    blocks: list[tuple[str, dict | None, str]] = []
    with open(path, encoding="utf-8", newline="\n") as fh:
        for line in fh:
            if line.startswith("\t") and blocks:
                prefix, meta, rest = blocks[-1]
                blocks[-1] = (prefix, meta, rest + line)
                continue
            cut = line.find("] {")
            try:
                blocks.append((line[: cut + 2], json.loads(line[cut + 2 :]), ""))
            except ValueError:
                blocks.append(("", None, line))
    return blocks


if __name__ == "__main__":
    raise SystemExit(main())
