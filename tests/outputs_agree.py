"""Every output shows a finding with the same message and fix (issue 34: the summary at the end of `tdiag run` once
printed another fix than lint): the end-of-run summary, lint, the JSON report, the HTML report, the TUI's detail pane
and the notebook view, each rendered from a record as its command renders it."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tdiag.analyzer.fix_status import label as fix_label


def _flat(text: str) -> str:
    return " ".join(text.split())


def disagreements(run_dir: Path, summary_text: str | None = None) -> list[str]:
    """What differs between the outputs, per finding (empty: they agree). ``summary_text``: the summary as the real
    `tdiag run` printed it (its stderr); without it, rendered here as `tdiag run` renders it."""
    from markupsafe import escape
    from tdiag.analyzer import build
    from tdiag.reports.console import MAX_ROWS
    from tdiag.reports.registry import ReportOptions, get_reporter

    from tdiag.commands._analysis import load_analysis

    full = load_analysis(str(run_dir))  # what lint, report, tui and fix read
    summary = build(run_dir, suggestions=False)  # what tdiag run's summary reads (tdiag/commands/_after_run.py)

    def key(f):
        return (f.code, f.path, f.line)

    def rendered(name: str, analysis) -> str:
        out = io.StringIO()
        get_reporter(name).render(analysis, out, ReportOptions(record=str(run_dir), run_dir=run_dir))
        return out.getvalue()

    problems: list[str] = []
    want = {key(f): (f.message, f.fix) for f in full.findings}
    if [key(f) for f in summary.findings] != [key(f) for f in full.findings]:
        problems.append(f"summary order {[key(f) for f in summary.findings]} != {[key(f) for f in full.findings]}")
    for f in summary.findings:
        if (f.message, f.fix) != want.get(key(f)):
            problems.append(f"summary model {key(f)}: {(f.message, f.fix)} != {want.get(key(f))}")

    shown = [f for f in full.findings if f.severity != "info"][:MAX_ROWS]
    text = _flat(summary_text if summary_text is not None else rendered("console", summary))
    for f in shown:
        for part in (f.message, fix_label("fix", f) + ": " + f.fix):
            if _flat(part) not in text:
                problems.append(f"summary text {key(f)} lacks {part!r}")

    for record in json.loads(rendered("lint-json", full)):
        k = (record["code"], record["filename"], record["location"]["row"])
        got = (record["message"], (record["fix"] or {}).get("message") or "")
        if got != want.get(k):
            problems.append(f"lint {k}: {got} != {want.get(k)}")

    for d in json.loads(rendered("json", full))["findings"]:
        k = (d["code"], d["path"], d["line"])
        if (d["message"], d["fix"]) != want.get(k):
            problems.append(f"json {k}: {(d['message'], d['fix'])} != {want.get(k)}")

    from tdiag.reports.html.page import FULL_FINDINGS

    page = rendered("html", full)
    for f in full.findings[:FULL_FINDINGS]:  # the server-rendered ones (the rest are the page's data rows)
        for part in (f'<p class="msg">{escape(f.message)}</p>', f"<b>{escape(fix_label('Fix', f))}:</b> {escape(f.fix)}</p>" if f.fix else ""):
            if part not in page:
                problems.append(f"html {key(f)} lacks {part!r}")

    from rich.console import Console
    from tdiag.tui.widgets.finding_detail import render_finding

    for f in full.findings:
        console = Console(width=10_000, record=True, file=io.StringIO())
        console.print(render_finding(f, full.sources))
        pane = _flat(console.export_text())
        for part in (f.message, fix_label("Fix", f) + ": " + f.fix if f.fix else ""):
            if _flat(part) not in pane:
                problems.append(f"tui {key(f)} lacks {part!r}")

    from tdiag.reports.notebook.render import to_html

    notebook = _flat(to_html(full, record=str(run_dir), expanded=True))
    for f in full.findings:
        for part in (escape(f.message), escape(f.fix)):
            if _flat(str(part)) not in notebook:
                problems.append(f"notebook {key(f)} lacks {part!r}")
    return problems
