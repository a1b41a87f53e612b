"""No output shows a Dynamo-internal name or a guard expression the user does not hold (issue 62): ``<self>``,
``G[``, ``L[``, ``___`` (``___stack2``, ``___check_obj_id``), "unknown source", "please file a bug".

``internal_names`` renders one Analysis through every output a user or a tool reads and returns where such a text
appears (empty: none). The corpora's modules call it on their real runs; tests/contract/test_no_internal_names.py on
every stored record and fixture.

What is checked of each output: the whole text of the console summary and of every lint format; of the analysis
JSON and the MCP answers, every finding's words (message, fix, the suggestion's words, the shown evidence) and the
summary. A finding's ``evidence`` in the JSON is what the rule saw, torch's records kept verbatim so they can be
matched with torch's own logs (TORCH_LOGS, tlparse), like the graphs' guard lists; every output that shows evidence
to a reader shows it through reports/view.py, checked here by the HTML report and the TUI's detail pane.
"""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path

from tdiag.analyzer.guard_words import DYNAMO_INTERNAL


def internal_names(analysis, record: str | Path | None = None, summary=None) -> list[str]:
    """``output: …text around the name…`` for every internal name an output of ``analysis`` shows.
    ``summary``: the Analysis `tdiag run`'s end-of-run summary reads (``build(run, suggestions=False)``), or its
    printed text; by default the summary is rendered from ``analysis``."""
    from tdiag.reports.registry import LINT_FORMATS, ReportOptions, get_reporter

    options = ReportOptions(record=str(record or "rec"), run_dir=Path(record) if record else None)

    def rendered(name: str, subject) -> str:
        out = io.StringIO()
        get_reporter(name).render(subject, out, options)
        return out.getvalue()

    texts: dict[str, str] = {}
    texts["console"] = summary if isinstance(summary, str) else rendered("console", summary or analysis)
    for fmt in LINT_FORMATS:
        texts[f"lint {fmt}"] = rendered(f"lint-{fmt}", analysis)
    exported = json.loads(rendered("json", analysis))
    texts["analysis json"] = json.dumps([_words(d) for d in exported["findings"]] + [exported["summary"]])
    texts["html"] = _html_text(analysis)
    texts.update(_mcp_texts(analysis, str(record or "rec")))
    texts["tui detail"] = _tui_text(analysis)
    return [f"{where}: …{text[max(0, m.start() - 80):m.end() + 40]}…"
            for where, text in texts.items() for m in DYNAMO_INTERNAL.finditer(text)]


def _words(finding: dict) -> dict:
    """A finding as the JSON exports it, less the rule's raw evidence (see the module's docstring)."""
    return {k: v for k, v in finding.items() if k != "evidence"}


def _html_text(analysis) -> str:
    """The page as a browser shows it: its markup's text (not its scripts and styles), and the data the script
    builds findings, graphs and charts from; not plotly's bundle nor the generated code (torch's program text, shown
    as code)."""
    from tdiag.reports.html.render import render

    page = _PageText()
    page.feed(render(analysis, plotly_bundle="", compress=False))
    page.close()
    return "\n".join(page.texts)


class _PageText(HTMLParser):
    SHOWN_PAYLOADS = ("tdiag-data", "tdiag-charts")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs) -> None:
        if tag in ("script", "style"):  # code of the page, or a payload: only the shown payloads are read
            self.skipping += dict(attrs).get("id") not in self.SHOWN_PAYLOADS

    def handle_endtag(self, tag) -> None:
        if tag in ("script", "style") and self.skipping:
            self.skipping -= 1

    def handle_data(self, data) -> None:
        if not self.skipping:
            self.texts.append(data)


def _mcp_texts(analysis, record: str) -> dict[str, str]:
    """The MCP server's answers over an Analysis (tdiag/mcp_server/queries.py: pure functions of it)."""
    from tdiag.mcp_server import queries

    listed = queries.findings(analysis, record, None, None, limit=10_000, evidence=False)
    return {"mcp findings": json.dumps(listed), "mcp summary": json.dumps(queries.summary(analysis, record))}


def _tui_text(analysis) -> str:
    from rich.console import Console
    from tdiag.tui.widgets.finding_detail import render_finding

    console = Console(width=10_000, record=True, file=io.StringIO())
    for f in analysis.findings:
        console.print(render_finding(f, analysis.sources))
    return console.export_text()
