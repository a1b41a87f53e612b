"""One view-model per finding (reports/view.py): the TUI detail pane and the HTML page show the same things for it
(torch's words, the guard, every evidence fact, the stack, the graphs), from real records."""

from __future__ import annotations

import dataclasses
import html
import io
import re

import pytest
from fixtures.analysis_factory import sample_analysis
from rich.console import Console
from tdiag.analyzer import build
from tdiag.analyzer.model import Frame
from tdiag.reports.html.page import build_page
from tdiag.reports.html.render import render
from tdiag.reports.view import finding_view
from tdiag.tui.widgets.finding_detail import render_finding


def _tui_text(finding, sources) -> str:
    out = io.StringIO()
    Console(file=out, width=1000, color_system=None).print(render_finding(finding, sources))
    return out.getvalue()


def _html_article(page_html: str, anchor: str) -> str:
    start = page_html.index(f'id="{anchor}"')
    body = page_html[start : page_html.index("</article>", start)]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def _shown(view) -> list[str]:
    """What every renderer must show for the finding: derived from the view, which is derived from the finding."""
    texts = [view.reason, view.explanation, *view.hints, view.guard, view.expected, view.actual, *view.graphs]
    for label, value in view.facts:
        texts += [label, value]
    for line in view.stack:
        texts += [f"{line.path}:{line.line}", line.function]
    if view.suggestion is not None:
        texts.append(view.suggestion.title)
    lib = view.finding.library_frame
    if lib is not None:
        texts += [view.library_label, f"{lib.path}:{lib.line}", lib.function]
    return [t for t in texts if t]


@pytest.mark.parametrize("program", ["data_dependent_if.py", "batch_size_change.py"])
def test_tui_and_html_show_the_same_view(recorded, program):
    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    analysis = build(run_dir)
    assert analysis.findings
    page_html = render(analysis, plotly_bundle="/* plotly */")
    anchors = {id(v.f): v.anchor for v in build_page(analysis).findings}
    for finding in analysis.findings:
        view = finding_view(finding, analysis.sources)
        expected = _shown(view)
        assert view.facts or view.reason or view.guard, finding.code  # the evidence is on screen somewhere
        tui = _tui_text(finding, analysis.sources)
        page = _html_article(page_html, anchors[id(finding)])
        assert [t for t in expected if t not in tui] == [], (finding.code, "TUI")
        assert [t for t in expected if t not in page] == [], (finding.code, "HTML")


def test_library_location_is_named_for_what_it_is():
    """A graph break broke inside the library; any other finding only stands for a library location."""
    analysis = sample_analysis()
    lib = Frame("<site-packages>/torch/nn/modules/container.py", 250, "forward", is_user=False)
    analysis.findings[1] = dataclasses.replace(analysis.findings[1], library_frame=lib)  # RCP001
    page_html = render(analysis, plotly_bundle="/* plotly */")
    anchors = {id(v.f): v.anchor for v in build_page(analysis).findings}
    for finding, label in ((analysis.findings[1], "Library location"), (analysis.findings[3], "Broke inside")):
        assert finding.library_frame is not None and finding_view(finding, analysis.sources).library_label == label
        site = f"{finding.library_frame.path}:{finding.library_frame.line}"
        assert f"{label} {site}" in _tui_text(finding, analysis.sources)
        assert f"{label}{site}" in _html_article(page_html, anchors[id(finding)])
