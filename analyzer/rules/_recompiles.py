"""Shared by the RCP rules: the rule a recompilation belongs to, and how recompiles at one site become a finding."""

from __future__ import annotations

from collections import defaultdict

from tdiag.analyzer.model import Finding, GuardFailure, Recompile, Site
from tdiag.analyzer.rules._breaks import _cid_key, _ranks

KIND_TO_CODE = {
    "size": "RCP001",
    "stride": "RCP001",
    "rank": "RCP001",
    "value": "RCP002",
    "length": "RCP002",
    "training": "RCP003",
    "dtype": "RCP004",
    "device": "RCP004",
}


def primary_failure(r: Recompile) -> GuardFailure | None:
    """The failure against the newest cache entry: the one that would have been reused."""
    return r.failures[0] if r.failures else None


def classify(r: Recompile) -> str:
    f = primary_failure(r)
    return KIND_TO_CODE.get(f.kind, "RCP006") if f else "RCP006"


def recompile_site(r: Recompile) -> Site:
    if r.call_site is not None:
        return r.call_site
    f = primary_failure(r)
    if f is not None and f.path and f.line:
        return Site(f.path, f.line, function=r.code_name)
    return Site(r.path, r.line, function=r.code_name)


def recompile_findings(ctx, rule, message, fix) -> list[Finding]:
    groups: dict[tuple[str, int], list[Recompile]] = defaultdict(list)
    for r in ctx.analysis.recompiles:
        if classify(r) == rule.code:
            groups[recompile_site(r).key].append(r)
    findings = []
    for (path, line), recompiles in groups.items():
        first = recompiles[0]
        failure = primary_failure(first)
        site = recompile_site(first)
        findings.append(
            Finding(
                code=rule.code,
                name=rule.name,
                severity=rule.severity,
                message=message(first, failure),
                fix=fix(first, failure),
                path=path,
                line=line,
                column=site.column,
                function=site.function,
                occurrences=len(recompiles),
                compile_ids=sorted({r.compile_id for r in recompiles}, key=_cid_key),
                impact=3.0 * len(recompiles),
                evidence={
                    "frame": first.code_name,
                    "frame_path": first.path,
                    "frame_line": first.line,
                    "guard": failure.text if failure else None,
                    "guard_kind": failure.kind if failure else None,
                    "subject": failure.subject if failure else None,
                    "dim": failure.dim if failure else None,
                    "expected": failure.expected if failure else None,
                    "actual": failure.actual if failure else None,
                    "guard_source": failure.source if failure else None,
                    "guard_path": failure.path if failure else None,
                    "guard_line": failure.line if failure else None,
                    "failures": [f.text for r in recompiles for f in r.failures],
                },
                ranks=_ranks(recompiles),
            )
        )
    return findings


def frame_label(r: Recompile) -> str:
    return f"{r.code_name} ({r.path}:{r.line})"


def subject_name(failure: GuardFailure | None) -> str:
    if failure is None or not failure.subject:
        return "an input"
    s = failure.subject
    if "___stack" in s:
        # A resume function's argument: a value computed before a graph break (e.g. an .item() result).
        return "a value carried across a graph break (e.g. an .item() result)"
    for prefix in ("L['", "G['"):
        if s.startswith(prefix) and s.endswith("']"):
            return s[len(prefix) : -2]
    return s
