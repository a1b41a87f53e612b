"""A finding's fix line is a candidate until `tdiag fix --verify` proves it on the user's program.

``mark_unverified`` runs when the findings are finished: every fix that asks the user to change something is
"unverified". ``apply_verification`` reads the record's last verification (``RECORD/fix/verification.json``, the
fix report's dict) and marks each finding whose patch a round kept "verified", with what the round measured, and
each whose patch was measured and not kept "refused", with why (its finding stayed, it did not pay, the output
changed). A finding no round reached stays "unverified". ``label`` is the one place every output words it.
"""

from __future__ import annotations

import re
from typing import Any

from tdiag.analyzer.model import Analysis, Finding

# fix lines that ask for no change: nothing to verify
_NOTHING_TO_DO = ("nothing to fix", "nothing to change", "expected", "no fix", "none needed")


def mark_unverified(findings: list[Finding]) -> None:
    for f in findings:
        asks = bool(f.fix) and not f.by_design and not f.fix.lower().startswith(_NOTHING_TO_DO)
        f.fix_status, f.fix_verdict = ("unverified" if asks else None), None


def apply_verification(analysis: Analysis, verification: dict[str, Any] | None) -> None:
    """Each finding's standing after the record's last `tdiag fix --verify` (None: no verification kept)."""
    if not verification:
        return
    patches = verification.get("patches") or []
    kept = {p.get("id") for p in verification.get("kept") or []}
    comparisons = verification.get("verification") or []
    for f in analysis.findings:
        if f.fix_status is None:
            continue
        key = finding_key(f)
        ids = {p.get("id") for p in patches if key in (p.get("findings") or [p.get("id")])}
        if not ids:
            continue
        # the patch measured, named where the fix line says another candidate (a torch setting from torch's hint
        # beside the catalogue's torch-native words): what was verified is the patch, not the words
        aside = "".join(f"; the patch: {p.get('title')}" for p in patches
                        if p.get("id") in ids and p.get("title") and not _names_the_patch(f.fix, p["title"]))
        if ids & kept:
            measured = next((c for c in comparisons if c.get("kept") and ids & set(c.get("patches") or [])), None)
            f.fix_status, f.fix_verdict = "verified", _measured(measured) + aside
            continue
        tried = [c for c in comparisons if ids & set(c.get("patches") or [])]
        if tried:
            f.fix_status, f.fix_verdict = "refused", _why_refused(tried[-1], f) + aside


def _names_the_patch(fix: str, title: str) -> bool:
    """Whether the fix line names what the patch changes: a dotted or snake_case name of its title
    (``capture_scalar_outputs``, ``torch.where``) in the line; True where the title has none to compare."""
    names = re.findall(r"[A-Za-z_]\w*(?:\.\w+)+|[A-Za-z]\w*_\w+", title)
    return not names or any(n.split(".")[-1] in fix for n in names)


def finding_key(f: Finding) -> str:
    """How the fix report names the finding a patch answers (plan.py's patch ids): ``BRK001@train.py:21``."""
    return f"{f.code}@{f.path}:{f.line}"


def _measured(comparison: dict | None) -> str:
    if comparison is None:
        return "kept by its round"
    improved = "; ".join(comparison.get("improved") or []) or "kept by its round"
    return improved if not comparison.get("output_judged") else f"{improved}; same output"


def _why_refused(comparison: dict, f: Finding) -> str:
    key = f"{f.code} at {f.path}:{f.line}"
    if key in (comparison.get("stayed") or []):
        return f"the finding stayed in the patched run ({key})"
    problems = comparison.get("problems") or []
    if problems:
        return "; ".join(problems)
    return "it made no measurable improvement"


def label(prefix: str, f: Finding) -> str:
    """``fix`` as every output heads the line: ``fix (unverified)``, ``fix (verified: graph breaks 1 -> 0)``."""
    if f.fix_status == "verified":
        return f"{prefix} (verified by `tdiag fix --verify`: {f.fix_verdict})"
    if f.fix_status == "refused":
        return f"{prefix} (refused by `tdiag fix --verify`: {f.fix_verdict})"
    if f.fix_status == "unverified":
        return f"{prefix} (unverified)"
    return prefix
