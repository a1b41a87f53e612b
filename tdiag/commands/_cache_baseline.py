"""``tdiag run``: why this run missed a compile cache, against the previous record of the same program.

The baseline is ``--baseline DIR``, else, for a record in the default place (``tdiag-runs/``), the newest other record
there whose header names the same program (a record written elsewhere with ``-o`` is compared only when asked). Built only when this run missed or bypassed a cache lookup: a run that hit
everywhere (or recorded no cache event) has nothing to explain and pays nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def explain_against_baseline(args: Any, run_dir: Path, analysis: Any, out=None) -> None:
    out = out or sys.stderr
    cc = analysis.summary.compile_cache
    if cc is None or not cc.recorded or not any(
            (getattr(cc, name).miss or getattr(cc, name).bypass) for name in ("fx_graph", "aot_autograd")
            if getattr(cc, name) is not None):
        return
    if getattr(args, "baseline", None):
        baseline = Path(args.baseline)
    elif run_dir.parent.name == RUNS_FOLDER:  # the default place; a record written elsewhere (-o) names none
        baseline = previous_record(run_dir)
    else:
        return
    if baseline is None:
        return
    try:
        from tdiag.analyzer import build
        from tdiag.analyzer.cache_diff import explain_misses
        from tdiag.reports.diff_text import cache_lines

        causes = explain_misses(build(baseline, suggestions=False), analysis)
    except Exception as exc:  # extra: the run's own summary stands
        print(f"tdiag: could not compare the compile caches with {baseline}: {type(exc).__name__}: {exc}", file=out)
        return
    lines = cache_lines(causes)
    if lines:
        print(f"compared with {baseline}:" + "\n".join(lines), file=out)


RUNS_FOLDER = "tdiag-runs"


def previous_record(run_dir: Path) -> Path | None:
    target = _target(run_dir)
    if target is None:
        return None
    candidates = [p for p in run_dir.parent.iterdir() if p.is_dir() and p.resolve() != run_dir.resolve()]
    for path in sorted(candidates, key=lambda p: p.stat().st_mtime, reverse=True):
        if _target(path) == target:
            return path
    return None


def _target(record: Path) -> Any:
    files = sorted(record.glob("events*.jsonl"))
    if not files:
        return None
    try:
        with open(files[0], encoding="utf-8") as fh:
            header = json.loads(fh.readline())
    except (OSError, ValueError):
        return None
    target = header.get("target") if isinstance(header, dict) else None
    return json.dumps(target, sort_keys=True) if target else None
