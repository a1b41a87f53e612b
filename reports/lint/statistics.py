"""``--statistics``: findings counted per code, most frequent first (flake8's ``--statistics``, ruff's layout)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tdiag.analyzer.model import Finding


def code_counts(findings: list[Finding]) -> list[dict[str, Any]]:
    counts = Counter(f.code for f in findings)
    first = {}
    for f in findings:
        first.setdefault(f.code, f)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [{"code": c, "name": first[c].name, "severity": first[c].severity, "count": n} for c, n in ranked]


def render_text(findings: list[Finding]) -> str:
    rows = code_counts(findings)
    if not rows:
        return ""
    count_width = max(len(str(r["count"])) for r in rows)
    code_width = max(len(r["code"]) for r in rows)
    return "".join(f"{r['count']:>{count_width}}\t{r['code']:<{code_width}}\t{r['name']}\n" for r in rows)


def render_json(findings: list[Finding]) -> str:
    return json.dumps(code_counts(findings), indent=2) + "\n"


RENDERERS = {"json": render_json, "json-lines": render_json}


def render(findings: list[Finding], fmt: str) -> str:
    """JSON for the JSON formats, flake8's text table for everything else."""
    return RENDERERS.get(fmt, render_text)(findings)
