"""``tdiag diff`` as text: counts before -> after, fixed / new / unchanged findings with their cost, regressions."""

from __future__ import annotations

from typing import Any


def render_text(result: Any, args: Any) -> str:
    """``args``: anything with ``base``, ``new`` (how the records were named) and ``fail_on``."""
    out = [f"tdiag diff {args.base} -> {args.new}", ""]
    width = max(len(name) for name in result.counts)
    for name, delta in result.counts.items():
        sign = f"{delta.change:+.3f}" if name.endswith("_s") else f"{int(delta.change):+d}"
        out.append(f"  {name:<{width}}  {_fmt(delta.base):>8} -> {_fmt(delta.new):<8} ({sign})")
    from tdiag.analyzer.rules import TIMING_FAMILIES
    from tdiag.reports.cost_format import cost_change_label, cost_label, runtime_delta_lines

    runtime = runtime_delta_lines(result.runtime)
    if runtime:
        out += ["", *runtime]
    out += cache_lines(result.cache)
    for title, findings in (("fixed", result.fixed), ("new", result.new)):
        out += ["", f"{title} ({len(findings)}):"]
        out += [
            f"  {f.path}:{f.line}: {f.code} {f.message}{_cost_suffix(cost_label(f.cost))}"
            + ("  (measured: timing, not a regression)" if title == "new" and f.family in TIMING_FAMILIES else "")
            for f in findings
        ]
    unknown = getattr(result, "unknown", [])
    if unknown:  # absent from a record that cannot support an all-clear (tdiag diff names why on stderr)
        out += ["", f"unknown ({len(unknown)}): absent from a record that cannot support an all-clear"]
        out += [f"  {f.path}:{f.line}: {f.code} {f.message}  (absent from {side})" for f, side in unknown]
    out += ["", f"unchanged ({len(result.unchanged)}):"]
    for b, n in result.unchanged:
        delta = result.cost_delta(b, n)
        out.append(f"  {n.path}:{n.line}: {n.code} {n.message}" + (f"  [cost {cost_change_label(delta)}]" if delta else ""))
    regressions = result.regressions(args.fail_on)
    out.append("")
    out.append("regressions:" if regressions else (
        "no regressions found, but a record cannot support an all-clear: this is not an all-clear" if unknown
        else "no regressions"))
    out += [f"  {r}" for r in regressions]
    return "\n".join(out) + "\n"


def cache_lines(causes: list[Any]) -> list[str]:
    """Why NEW missed a compile cache where BASE hit or compiled: the key component that changed, per graph."""
    if not causes:
        return []
    out = ["", f"compile cache: {len(causes)} graph lookup(s) missed where the base run had the graph:"]
    for cause in causes:
        role = f" {cause.role}" if cause.role else ""
        out.append(f"  {cause.function} ({cause.compile_id}){role}: {cause.base_state} -> {cause.new_state}"
                   + (f"; {cause.note}" if cause.note else ""))
        for change in cause.changes:
            out.append(f"    {change.words}" + (f" (set at {change.site})" if change.site else ""))
    return out


def _cost_suffix(label: str) -> str:
    return "" if label == "-" else f"  [cost {label}]"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"
