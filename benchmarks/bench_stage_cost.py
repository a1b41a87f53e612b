"""What one analysis stage costs on a many-rank record: `python benchmarks/bench_stage_cost.py [--stage compile_cache]
[--ranks 256] [--pairs 3] [--from RECORD]`.

The job is benchmarks/bench_many_ranks.py's (real rank files of an Inductor FSDP2 job, each grown to 3 MB, 256
ranks). Each pair analyses it twice in fresh processes, once with the whole pipeline and once with the stage taken
out of analyzer/stages.py's table (the rules that read its facts then run without them), in alternating order; the
figure is the median of the pairs' ratios of analysis wall time. Goal (issue 42): the compile-cache stage adds at
most 5% to the analysis of the 256-rank record.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_many_ranks import record_template, template_lines, write_rank  # noqa: E402

CHILD = """
import json, sys, time
from tdiag.analyzer import stages
if sys.argv[2] != "-":
    stages.STAGES = tuple(s for s in stages.STAGES if s.name != sys.argv[2])
t0 = time.perf_counter()
from tdiag.analyzer import build
a = build(sys.argv[1])
print(json.dumps({"analysis_s": time.perf_counter() - t0, "findings": len(a.findings), "ranks": len(a.run.ranks),
                  "stages": len(stages.STAGES)}))
"""


def analyse(job: Path, without: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(job), without], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="compile_cache")
    parser.add_argument("--ranks", type=int, default=256)
    parser.add_argument("--mb-per-rank", type=float, default=3.0)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--from", dest="source", type=Path, help="a record to take the rank files from")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as d:
        work = Path(d)
        template = template_lines(args.source or record_template(work / "template"))
        job = work / "job"
        job.mkdir()
        for rank in range(args.ranks):
            write_rank(job / f"events.rank{rank}.jsonl", rank, template[rank % len(template)], args.mb_per_rank, work,
                       False)
        ratios, pairs = [], []
        for i in range(args.pairs):
            order = ("-", args.stage) if i % 2 == 0 else (args.stage, "-")
            got = {which: analyse(job, which) for which in order}
            whole, without = got["-"], got[args.stage]
            assert whole["stages"] == without["stages"] + 1, (whole, without)
            ratios.append(whole["analysis_s"] / without["analysis_s"])
            pairs.append({"with_s": round(whole["analysis_s"], 2), "without_s": round(without["analysis_s"], 2)})
            print(json.dumps({"pair": i + 1, **pairs[-1], "ratio": round(ratios[-1], 3)}), flush=True)
        print(json.dumps({"stage": args.stage, "ranks": args.ranks, "pairs": len(ratios),
                          "median_ratio": round(statistics.median(ratios), 3),
                          "median_with_s": round(statistics.median(p["with_s"] for p in pairs), 2),
                          "median_without_s": round(statistics.median(p["without_s"] for p in pairs), 2)}))


if __name__ == "__main__":
    main()
