"""The report in a real headless chromium: scripts, charts, permalinks, filters, copy, and hostile run text."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.analysis_factory import IMG_PAYLOAD, SCRIPT_PAYLOAD, hostile_analysis, hostile_many
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Analysis
from tdiag.reports.html import write_html
from tdiag.reports.html.page import FULL_FINDINGS, build_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> tuple[Path, Analysis]:
    analysis = hostile_analysis(ranks=[0, 1])
    path = tmp_path_factory.mktemp("html") / "report.html"
    write_html(analysis, path)
    return path, analysis


class PageLog:
    def __init__(self, page) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: m.type in ("error", "warning") and self.errors.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: self.requests.append(r.url))


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    yield ctx
    ctx.close()


def open_report(context, report_file, fragment: str = ""):
    path, analysis = report_file
    page = context.new_page()
    log = PageLog(page)
    page.goto(path.as_uri() + fragment)
    wait_ready(page)
    return page, log, analysis


def wait_ready(page, stage: str = "findings") -> None:
    """The page inflates its data before the findings work, and draws the charts after: wait for ``stage``."""
    stages = ["findings", "charts"][["findings", "charts"].index(stage):]
    page.wait_for_function(f"() => {stages!r}.includes(document.documentElement.dataset.ready)")


def test_loads_cleanly_and_renders_every_chart(context, report_file, artifacts: Path) -> None:
    page, log, analysis = open_report(context, report_file)
    charts = page.eval_on_selector_all("div.chart", "els => els.map(e => e.id)")
    assert len(charts) == 5  # four charts and the per-rank heat map (a 2-rank fixture)
    wait_ready(page, "charts")
    for chart_id in charts:
        page.wait_for_selector(f"#{chart_id} svg.main-svg", state="attached")
    page.screenshot(path=str(artifacts / "html-report.png"), full_page=True)
    # line numbers sit in their own <pre>: they must stay aligned with the code, badges included
    heights = page.eval_on_selector_all(
        ".srcbox", "boxes => boxes.map(b => [b.querySelector('.gut').scrollHeight, b.querySelector('.src').scrollHeight])"
    )
    assert heights and all(g == s for g, s in heights)
    assert log.errors == []
    assert log.dialogs == []
    # nothing but the file itself was loaded
    assert all(url.startswith("file://") for url in log.requests), log.requests


def test_hostile_text_is_text_and_runs_nothing(context, report_file) -> None:
    page, log, analysis = open_report(context, report_file)
    wait_ready(page, "charts")
    # open everything, including the lazily loaded generated code and the charts' hover labels: opening a graph
    # builds its kernel tables, whose code blocks are new and closed, so open until nothing closed is left and every
    # code block has asked for its text
    page.wait_for_function("""() => {
        const closed = [...document.querySelectorAll('details:not([open])')];
        closed.forEach(e => { e.open = true; });
        const code = [...document.querySelectorAll('details[data-code] > pre')];
        return closed.length === 0 && code.length > 0 && code.every(pre => pre.dataset.loaded);
    }""")
    expected_code = analysis.code["k1"]
    page.wait_for_function("text => document.querySelector(\"details.code[data-code='k1'] > pre\").textContent === text",
                           arg=expected_code)
    page.evaluate("Plotly.Fx.hover(document.getElementById('chart-recompiles'), [{curveNumber: 0, pointNumber: 0}])")
    page.wait_for_selector("#chart-recompiles .hoverlayer .hovertext")  # the hover label, with its hostile text, is up
    assert log.dialogs == []
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    # four payloads (data, code, charts, plotly.js), the page script, and plotly.js once inflated and run
    assert page.evaluate("document.querySelectorAll('script').length") == 6
    body = page.inner_text("body")
    assert SCRIPT_PAYLOAD in body and IMG_PAYLOAD in body
    assert page.text_content("details.code[data-code='k1'] > pre") == analysis.code["k1"]


def test_permalink_scrolls_to_the_finding(context, report_file) -> None:
    path, analysis = report_file
    target = analysis.findings[-1]
    page, log, _ = open_report(context, report_file, f"#{target.anchor}")
    box = page.locator(f"[id='{target.anchor}']")
    assert box.is_visible()
    top = box.evaluate("el => el.getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"] / 2
    assert page.evaluate("window.scrollY") > 0


def test_source_mark_links_to_its_finding(context, report_file) -> None:
    page, log, analysis = open_report(context, report_file)
    f = analysis.findings[0]
    page.locator(f"pre.src a.badge[href='#{f.anchor}']").first.click()
    assert page.evaluate("location.hash") == f"#{f.anchor}"
    assert page.locator(f"[id='{f.anchor}']").is_visible()


def visible_ids(page) -> list[str]:
    return page.eval_on_selector_all("article.finding:not([hidden])", "els => els.map(e => e.id)")


def test_filters_hide_and_show_findings(context, report_file) -> None:
    page, log, analysis = open_report(context, report_file)
    everything = [f.anchor for f in analysis.findings]
    assert visible_ids(page) == everything

    family = analysis.findings[0].family
    page.uncheck(f"input[name=family][value={family}]")
    assert visible_ids(page) == [f.anchor for f in analysis.findings if f.family != family]
    page.check(f"input[name=family][value={family}]")
    assert visible_ids(page) == everything

    page.uncheck("input[name=severity][value=error]")
    assert visible_ids(page) == [f.anchor for f in analysis.findings if f.severity != "error"]
    page.check("input[name=severity][value=error]")

    needle = analysis.findings[-1].message
    page.fill("#search", needle.upper())
    assert visible_ids(page) == [f.anchor for f in analysis.findings if needle in f.message]
    page.fill("#search", "no finding says this")
    assert visible_ids(page) == []
    assert page.is_visible("#no-match")
    page.fill("#search", "")

    page.select_option("#rank", "0")
    assert visible_ids(page) == [f.anchor for f in analysis.findings if not f.ranks or f.ranks.get(0)]
    page.select_option("#rank", "")
    assert visible_ids(page) == everything


def test_copy_patch_button_copies_the_patch(context, report_file) -> None:
    page, log, analysis = open_report(context, report_file)
    f = next(f for f in analysis.findings if f.suggestion and f.suggestion.patch)
    page.click(f"button.copy[data-copy='patch-{f.anchor}']")
    page.wait_for_function("() => document.querySelector('button.copy').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == f.suggestion.patch


def test_readable_without_javascript(browser) -> None:
    analysis = hostile_analysis()
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        log = PageLog(page)
        page.set_content(_render(analysis))
        for f in analysis.findings:
            box = page.locator(f"[id='{f.anchor}']")
            assert box.is_visible()
            assert f.message in box.inner_text()
        assert not page.is_visible("#filters")  # controls that need JS are hidden, not dead
        assert page.is_visible("pre.src")
        assert log.dialogs == []
    finally:
        ctx.close()


def _render(analysis: Analysis) -> str:
    from tdiag.reports.html import render_html

    return render_html(analysis)


def test_graph_tables_are_built_on_open(context, report_file) -> None:
    page, log, analysis = open_report(context, report_file, "#graph-0")
    graph = analysis.graphs[0]
    page.wait_for_selector("#graph-0 details.guards")
    guards = page.eval_on_selector_all("#graph-0 details.guards tbody tr td:nth-child(2)", "els => els.map(e => e.textContent)")
    # every guard, in order, as the user's code names it (guard_words.user_words: `L['x']` -> `x`, issue 62)
    assert guards == [user_words(g.text) for g in graph.guards]
    assert not any("L[" in text or "G[" in text for text in guards)
    kernels = page.eval_on_selector_all("#graph-0 table.kernels tbody tr td:first-child > code", "els => els.map(e => e.textContent)")
    assert kernels == [k.name for k in graph.kernels]
    page.click("#graph-0 table.kernels details.code > summary")
    # the code is filled in by the toggle handler, after the click returns
    page.wait_for_function(
        "() => document.querySelector('#graph-0 table.kernels details.code > pre').textContent.length > 0"
    )
    assert page.text_content("#graph-0 table.kernels details.code > pre") == analysis.code["k1"]
    assert log.errors == [] and log.dialogs == []


@pytest.fixture(scope="module")
def many_file(tmp_path_factory) -> tuple[Path, Analysis]:
    analysis = hostile_many(FULL_FINDINGS + 30)
    path = tmp_path_factory.mktemp("html") / "many.html"
    write_html(analysis, path)
    return path, analysis


def test_lazy_finding_by_permalink_search_and_copy(context, many_file) -> None:
    path, analysis = many_file
    index = FULL_FINDINGS + 20
    f = analysis.findings[index]
    page, log, _ = open_report(context, many_file)
    ids = page.eval_on_selector_all("article.finding", "els => els.map(e => e.id)")
    assert len(ids) == len(analysis.findings)
    anchor = ids[index]
    page.goto(path.as_uri() + f"#{anchor}")  # same document: a hashchange
    box = page.locator(f"[id='{anchor}']")
    assert box.is_visible()
    assert f.message in box.inner_text()
    top = box.evaluate("el => el.getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"] / 2
    # built like a server-rendered one: excerpt cut from the source view, evidence, patch
    line = analysis.sources[f.path].splitlines()[f.line - 1]
    assert box.locator("pre.excerpt .hit").text_content() == f"{f.line}{line}\n"
    assert box.locator("dl.evidence").is_visible()
    by_key = {g.key: f"#graph-{i}" for i, g in enumerate(analysis.graphs)}
    links = box.locator("dl.evidence a[href^='#graph-']")
    assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [
        by_key[k] for k in f.graph_keys if k in by_key] != []  # compile ids link to their graphs
    box.locator("button.copy").click()
    page.wait_for_function(f"() => document.querySelector(\"[id='{anchor}'] button.copy\").textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == f.suggestion.patch
    # search reaches lazily built findings through their data (the patch text is not in the shell)
    page.goto(path.as_uri())
    page.reload()
    wait_ready(page)
    needle = f"torch.where_{index}("
    page.fill("#search", needle)
    assert visible_ids(page) == [anchor]
    page.fill("#search", f.message)
    assert visible_ids(page) == [anchor]
    page.fill("#search", "")
    page.uncheck(f"input[name=family][value={f.family}]")
    assert anchor not in visible_ids(page)
    assert log.errors == [] and log.dialogs == []


def test_opened_at_a_lazy_permalink(context, many_file) -> None:
    path, analysis = many_file
    anchor = build_page(analysis).findings[-1].anchor  # with its -N suffix
    page, log, _ = open_report(context, many_file, f"#{anchor}")
    box = page.locator(f"[id='{anchor}']")
    assert box.is_visible() and box.locator("pre.diff").is_visible()
    assert page.evaluate("window.scrollY") > 0
    assert log.errors == []


def test_top_findings_readable_without_javascript(browser, many_file) -> None:
    path, analysis = many_file
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto(path.as_uri())
        ids = page.eval_on_selector_all("article.finding", "els => els.map(e => e.id)")
        assert len(ids) == FULL_FINDINGS
        for f, anchor in list(zip(analysis.findings, ids))[:: FULL_FINDINGS // 10]:
            box = page.locator(f"[id='{anchor}']")
            assert box.is_visible() and f.message in box.inner_text()
        assert "30 more findings" in page.inner_text("#findings")
    finally:
        ctx.close()


def _big_numbers_analysis() -> Analysis:
    """Counts in the thousands (4-5 digit tick labels) and 60 frames (the timeline drawn as one trace)."""
    from tdiag.analyzer.model import CompiledGraph, Kernel, Summary

    graphs = [
        CompiledGraph(compile_id=f"{i}/0", frame_id=i, frame_compile_id=0, code_name=f"forward_{i}",
                      path=f"pkg/models/very_long_module_name_{i}.py", line=10 + i, op_count=12000 + 37 * i,
                      compile_time_s=0.5, stages={"dynamo": 0.2, "aot": 0.3}, start_time=float(i),
                      kernels=[Kernel(name=f"k{i}_{k}", kind="pointwise" if k % 4 else "reduction", backend="triton")
                               for k in range(40)])
        for i in range(60)
    ]
    return Analysis(graphs=graphs, summary=Summary(graphs=len(graphs)))


def test_axis_labels_inside_their_charts(context, tmp_path) -> None:
    path = tmp_path / "big.html"
    write_html(_big_numbers_analysis(), path)
    page, log, _ = open_report(context, (path, None))
    wait_ready(page, "charts")
    outside = page.evaluate(
        """() => Array.from(document.querySelectorAll("div.chart")).flatMap(chart => {
            const box = chart.getBoundingClientRect();
            const labels = chart.querySelectorAll(".xtick text, .ytick text, .g-xtitle text, .g-ytitle text");
            if (!labels.length) return [chart.id + ": no axis labels drawn"];
            return Array.from(labels).filter(t => {
                const r = t.getBoundingClientRect();
                return r.left < box.left - 1 || r.right > box.right + 1
                    || r.top < box.top - 1 || r.bottom > box.bottom + 1;
            }).map(t => chart.id + ": " + t.textContent);
        })"""
    )
    assert outside == []
    assert page.eval_on_selector_all("div.chart", "els => els.length") == 4
    assert log.errors == []
