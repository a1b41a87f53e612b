"""Regenerate docs/reliability.md from the result files the hardening tests write (test-artifacts/reliability/).

Run: python tests/hardening/render_reliability.py  (the hardening conftest also runs it at the end of a session).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from hardening_util import REPO, RESULTS  # noqa: E402

DOC = REPO / "docs" / "reliability.md"
AREAS = [
    ("behaviour", "1. The program behaves exactly as under python"),
    ("faults", "2a. Nothing is lost: faults injected into a recorded run"),
    ("inputs", "2b. Every reader survives bad input"),
    ("memory", "2c. Memory stays bounded"),
    ("leaks", "3. Nothing leaks"),
]
INTRO = """# Reliability

tdiag never changes, loses or leaks what it observes. Each row below is measured by a test in `tests/hardening/`,
which writes its figures to `test-artifacts/reliability/`; this page is regenerated from them at the end of every
run of that suite (`python -m pytest tests/hardening`) or by `python tests/hardening/render_reliability.py`.
Do not edit it by hand.
"""


def render() -> Path:
    rows = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]
    out = [INTRO]
    for area, title in AREAS:
        mine = sorted((r for r in rows if r["area"] == area), key=lambda r: r["key"])
        if not mine:
            continue
        out += [f"## {title}", "", "| Fault or input | Cases run | What happened |", "|---|---:|---|"]
        out += [f"| {_cell(r['what'])} | {r['cases']} | {_cell(r['outcome'])} |" for r in mine]
        out.append("")
    total = sum(r["cases"] for r in rows if r["area"] == "inputs" and not r.get("subset"))
    out.append(f"Bad-input cases in total: **{total}**, every one ending in a result or a `TdiagError`, none in a traceback.")
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text("\n".join(out) + "\n")
    return DOC


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


if __name__ == "__main__":
    print(render().relative_to(REPO))
