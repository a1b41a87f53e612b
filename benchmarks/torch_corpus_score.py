"""Score tdiag on torch's own Dynamo test programs (tests/torch_dynamo_corpus), per issue 62's measure: of the break
types and guard kinds the programs exercise, the share with a right finding, and of those with a user-level fix, the
share `tdiag fix --verify` verifies.

Each program runs in a scratch git repository: `tdiag run`, `tdiag lint --format json`, and with --verify
`tdiag fix --verify --format json` (which also leaves the record's verification, so lint's `fix.status` says
verified/refused). The verdicts here are mechanical (line, kind, GB id, "nothing to fix" respected, verification);
docs/blind-batches.md's judgement (is the fix right, does it name only what exists) is written beside them by hand.

    python benchmarks/torch_corpus_score.py [--verify] [--jobs 2] [--only NAME ...] --out DIR
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "torch_dynamo_corpus"
FAMILIES = {"break": ("BRK", "CRS"), "guard": ("RCP", "DYN", "CRS"), "skip": ("BRK", "WRN", "CMP", "DST")}


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def score_one(expected: dict, work: Path, verify: bool, budget: int) -> dict:
    name = expected["program"]
    root = work / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copy(CORPUS / "programs" / f"{name}.py", root / f"{name}.py")
    for git in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "i"]):
        _run(["git", *git], root)
    tdiag = [sys.executable, "-m", "tdiag"]
    started = time.time()
    run = _run([*tdiag, "run", "--no-tui", "-q", "-o", "rec", f"{name}.py"], root)
    fix = None
    if verify:
        proc = _run([*tdiag, "fix", "rec", "--verify", "--format", "json", "--budget", str(budget)], root, budget + 120)
        try:
            fix = json.loads(proc.stdout)
        except ValueError:
            fix = {"error": proc.stderr[-500:]}
    lint = _run([*tdiag, "lint", "rec", "--format", "json"], root)
    try:
        findings = json.loads(lint.stdout)
    except ValueError:
        findings = []
    return {"expected": expected, "findings": findings, "fix": fix, "exit": run.returncode,
            "seconds": round(time.time() - started, 1), "verdict": verdict(expected, findings, fix)}


def verdict(expected: dict, findings: list[dict], fix: dict | None) -> dict:
    line, kind = expected["user_line"], expected["kind"]
    families = FAMILIES[kind]
    at_line = [f for f in findings if f["location"]["row"] == line]
    gb = expected["id"].upper() if expected["id"].upper().startswith("GB") else None
    right_kind = [f for f in at_line if f["code"].startswith(families) and (gb is None or not f.get("gb_id")
                                                                             or f["gb_id"] == gb)]
    nothing = expected["fix"] not in ("yes", "hint")  # hint: torch's own hint is the user-level fix
    asks = [f for f in findings if f["severity"] != "info" and (f.get("fix") or {}).get("status") is not None]
    out = {"found": bool(right_kind), "first": bool(findings) and findings[0] in right_kind,
           "codes": [f"{f['code']}@{f['location']['row']}" for f in findings]}
    if nothing:
        # an expected recompile or a user bug: found right when it is reported without asking for a change
        out["found"] = out["found"] or not findings
        out["quiet"] = not [f for f in right_kind if f in asks] and not [f for f in asks if f not in right_kind]
    if fix is not None and right_kind and not nothing:
        statuses = [(f.get("fix") or {}).get("status") for f in right_kind]
        out["verified"] = "verified" in statuses
        out["statuses"] = statuses
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=int, default=150)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    expected = json.loads((CORPUS / "expected.json").read_text())
    if args.only:
        expected = [e for e in expected if e["program"] in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / "work"
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(lambda e: score_one(e, work, args.verify, args.budget), expected):
            results.append(result)
            v = result["verdict"]
            print(f"{result['expected']['program']:40s} found={v['found']!s:5} first={v['first']!s:5} "
                  f"verified={v.get('verified', '-')!s:5} {' '.join(v['codes'])[:80]}", flush=True)
    (args.out / "score.json").write_text(json.dumps(results, indent=1))
    found = sum(r["verdict"]["found"] for r in results)
    fixable = [r for r in results if r["expected"]["fix"] in ("yes", "hint") and r["verdict"]["found"]]
    verified = sum(bool(r["verdict"].get("verified")) for r in fixable)
    print(f"right finding (mechanical): {found}/{len(results)}; first finding the expected one: "
          f"{sum(r['verdict']['first'] for r in results)}/{len(results)}"
          + (f"; of {len(fixable)} found with a user-level fix, verified by fix --verify: {verified}" if args.verify else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
