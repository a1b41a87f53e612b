"""The server-rendered page, section by section, checked against the Analysis it was built from."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fixtures.analysis_factory import IMG_PAYLOAD, PLOTLY_STUB, SCRIPT_PAYLOAD, hostile_analysis, hostile_many
from plotly.offline import get_plotlyjs
from report_dom import Node, parse, payload_text, script_json
from tdiag.analyzer.evidence import BreakEvidence
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.model import Analysis, Finding
from tdiag.reports.html import render_html, write_html
from tdiag.reports.html.escape import json_for_script
from tdiag.reports.html.page import FULL_FINDINGS
from tdiag.reports.html.render import render
from tdiag.reports.html.source import split_highlight


def test_page_is_self_contained(dom: Node, html: str) -> None:
    csp = dom.find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert "default-src 'none'" in csp
    assert "connect-src" not in csp  # falls back to default-src 'none'
    assert not dom.find_all("link")
    for node in dom.iter():
        for attr in ("src", "href", "action", "srcset", "poster"):
            value = node.attrs.get(attr)
            if value and attr != "href":
                pytest.fail(f"<{node.tag} {attr}={value!r}> would load a resource")
    # the only outbound links are the GB documentation links, which the user clicks
    external = [n.attrs["href"] for n in dom.find_all("a") if not n.attrs["href"].startswith("#")]
    assert all(h.startswith("https://") for h in external)


def test_summary_cards_and_run(dom: Node, analysis: Analysis) -> None:
    summary = dom.by_id("summary")
    cards = {c.find(cls="label").text(): c.find(cls="value").text() for c in summary.find_all(cls="card")}
    s = analysis.summary
    assert cards["Graphs"] == str(s.graphs)
    assert cards["Graph breaks"] == str(s.graph_breaks)
    assert cards["Recompiles"] == str(s.recompiles)
    assert cards["Eager fallbacks"] == str(s.eager_fallbacks)
    assert cards["Kernels"] == str(sum(s.kernels_by_kind.values()))
    assert cards["Compile time"] == f"{s.compile_time_s:.2f} s"
    assert cards["Findings"] == str(len(analysis.findings))
    kernels_card = next(c for c in summary.find_all(cls="card") if c.find(cls="label").text() == "Kernels")
    for kind, n in s.kernels_by_kind.items():
        assert f"{kind} {n}" in kernels_card.text()
    run = {tr.find("th").text(): tr.find("td").text() for tr in summary.find("table", cls="run").find_all("tr")}
    assert run["Command"] == analysis.run.command
    assert run["torch"] == analysis.run.torch_version
    assert run["Device"] == analysis.run.device
    assert run["Python"] == analysis.run.python_version
    assert [li.text() for li in summary.find(cls="notes").find_all("li")] == analysis.run.notes


def test_findings_in_rank_order_with_permalinks(dom: Node, analysis: Analysis) -> None:
    articles = dom.by_id("findings").find_all("article", cls="finding")
    assert [a.attrs["id"] for a in articles] == [f.anchor for f in analysis.findings]
    for article, f in zip(articles, analysis.findings):
        assert article.attrs["data-family"] == f.family
        assert article.attrs["data-severity"] == f.severity
        assert article.find("a", cls="permalink").attrs["href"] == f"#{f.anchor}"
        assert f.message in article.find(cls="msg").text()
        assert f.fix in article.find(cls="fix").text()
        assert article.find(cls="rule").text() == f.code


def _finding(dom: Node, f: Finding) -> Node:
    return dom.by_id(f.anchor)


def test_finding_excerpt_highlights_the_expression(dom: Node, analysis: Analysis) -> None:
    for f in analysis.findings:
        article = _finding(dom, f)
        line = analysis.sources[f.path].splitlines()[f.line - 1]
        target = article.find("pre", cls="excerpt").find(cls="hit")
        # the excerpt shows the recorded line verbatim, with the number in front
        assert target.text() == f"{f.line}{line}\n"
        if f.column:
            expected = line[f.column - 1 : f.end_column - 1]
            assert target.find("mark").text() == expected


def test_finding_evidence_stack_and_gb_link(dom: Node, analysis: Analysis) -> None:
    f = next(f for f in analysis.findings if isinstance(f.evidence, BreakEvidence) and f.evidence.user_stack)
    article = _finding(dom, f)
    evidence = article.find("dl", cls="evidence").text()
    assert f.evidence.reason in evidence
    assert f.evidence.explanation in evidence
    assert [li.text() for li in article.find("ul", cls="hints").find_all("li")] == f.evidence.hints
    assert article.find("a", href=f.gb_url).text() == f.gb_id
    stack = article.find("details", cls="stack").find_all("li")
    assert len(stack) == len(f.evidence.user_stack)
    for li, frame in zip(stack, f.evidence.user_stack):
        assert f"{frame.path}:{frame.line}" in li.text()
        assert frame.function in li.text()


def test_non_http_gb_url_is_not_a_link(dom: Node, analysis: Analysis) -> None:
    f = next(f for f in analysis.findings if f.gb_url and not f.gb_url.startswith("http"))
    article = _finding(dom, f)
    assert not article.find_all("a", href=f.gb_url)
    assert f.gb_id in article.find("dl", cls="evidence").text()


def test_suggestion_patch_is_verbatim(dom: Node, analysis: Analysis) -> None:
    for f in analysis.findings:
        if not f.suggestion:
            continue
        article = _finding(dom, f)
        box = article.find(cls="suggestion")
        assert f.suggestion.title == box.find("h4").text()
        if f.suggestion.patch:
            pre = box.find("pre", cls="diff")
            assert pre.text() == f.suggestion.patch
            assert box.find("button", cls="copy").attrs["data-copy"] == pre.attrs["id"]
        else:
            assert f.suggestion.patch_note in box.text()


def test_filters_list_every_family_and_severity(dom: Node, analysis: Analysis) -> None:
    form = dom.by_id("filters")
    families = {i.attrs["value"] for i in form.find_all("input", name="family")}
    severities = {i.attrs["value"] for i in form.find_all("input", name="severity")}
    assert families == {f.family for f in analysis.findings}
    assert severities == {f.severity for f in analysis.findings}
    assert "js-only" in form.classes  # hidden when JavaScript is off


def test_charts_have_a_div_and_a_figure_each(dom: Node, analysis: Analysis) -> None:
    figures = script_json(dom, "tdiag-charts")
    divs = [d.attrs["id"] for d in dom.by_id("charts").find_all("div", cls="chart")]
    assert divs == list(figures)
    assert len(divs) == 4
    sizes = figures["chart-graph-sizes"]
    plotted = {x: y for trace in sizes["data"] for x, y in zip(trace["x"], trace["y"])}
    assert plotted == {g.compile_id: g.op_count for g in analysis.graphs}
    timeline = figures["chart-recompiles"]
    assert sum(len(t["x"]) for t in timeline["data"]) == len(analysis.graphs)
    kernels = figures["chart-kernels"]
    assert sum(sum(t["y"]) for t in kernels["data"]) == sum(len(g.kernels) for g in analysis.graphs)
    stages = figures["chart-compile-time"]
    total = sum(sum(t["x"]) for t in stages["data"])
    assert total == pytest.approx(sum(g.compile_time_s for g in analysis.graphs), abs=1e-3)


def test_chart_labels_from_the_run_are_not_plotly_markup(dom: Node) -> None:
    text = json.dumps(script_json(dom, "tdiag-charts"))
    # plotly reads <a>, <b>, <br> inside labels: run text reaches it only as entities
    assert "<img" not in text and "&lt;img" in text


def test_annotated_source_marks_link_to_findings(dom: Node, analysis: Analysis) -> None:
    sources = dom.by_id("sources").find_all("details", cls="source")
    assert sorted(s.find("summary").find("code").text() for s in sources) == sorted(analysis.sources)
    for section in sources:
        path = section.find("summary").find("code").text()
        text = analysis.sources[path]
        code = section.find("pre", cls="src")
        gutter = section.find("pre", cls="gut").text().split("\n")
        assert gutter == [str(n) for n in range(1, len(text.splitlines()) + 1)]
        marked = {int(span.attrs["id"].rsplit("-L", 1)[1]): span for span in code.find_all("span", cls="hit")}
        assert set(marked) == {f.line for f in analysis.findings if f.path == path}
        for number, span in marked.items():
            badges = [a.attrs["href"][1:] for a in span.find_all("a", cls="badge")]
            assert badges == [f.anchor for f in analysis.findings_at(path, number)]
            assert span.text().startswith(text.splitlines()[number - 1])
        # badges aside, the code block is the recorded file verbatim
        # the template starts the <pre> with a newline that browsers drop (html.parser keeps it)
        assert code.text().startswith("\n")
        without_badges = code.text()[1:]
        for a in code.find_all("a", cls="badge"):
            without_badges = without_badges.replace(" " + a.text(), "", 1)
        assert without_badges == "".join(line + "\n" for line in text.splitlines())
    for f in analysis.findings:
        link = _finding(dom, f).find("a", cls="loc").attrs["href"]
        assert dom.by_id(link[1:]).tag == "span"


def _decode(strings: list[str], index: int | None) -> str | None:
    return None if index is None else strings[index]


def test_graphs_show_guards_kernels_and_lazy_code(dom: Node, analysis: Analysis) -> None:
    blocks = dom.by_id("graphs").find_all("details", cls="graph")
    assert [b.attrs["data-compile-id"] for b in blocks] == [g.compile_id for g in analysis.graphs]
    code = script_json(dom, "tdiag-code")
    data = script_json(dom, "tdiag-data")
    strings = data["strings"]
    assert len(data["graphs"]) == len(analysis.graphs)
    for index, (block, graph) in enumerate(zip(blocks, analysis.graphs)):
        assert "open" not in block.attrs  # collapsed by default
        # guard and kernel tables are built by the script from the embedded data, not server-rendered
        assert not block.find_all("table")
        tables = block.find_all("div", cls="tables")
        assert [t.attrs["data-graph"] for t in tables] == ([str(index)] if graph.guards or graph.kernels else [])
        guards, groups = data["graphs"][index]
        # each guard as the user's code names it (issue 62: no output shows Dynamo's L['x'])
        assert [(_decode(strings, g[0]), _decode(strings, g[1])) for g in guards] == \
            [(g.kind, user_words(g.text)) for g in graph.guards]
        kernels = [k for _, ks in groups for k in ks]
        assert [_decode(strings, k[0]) for k in kernels] == [k.name for k in graph.kernels]
        for row, kernel in zip(kernels, graph.kernels):
            assert [_decode(strings, n) for n in row[3]] == kernel.fused_nodes
            assert _decode(strings, row[6]) == (kernel.code_ref if kernel.code_ref in analysis.code else None)
        assert {_decode(strings, g) for g, _ in groups} == {k.graph for k in graph.kernels}
        for lazy in block.find_all("details", cls="code"):
            assert lazy.find("pre").text() == ""  # filled by the page script on first open
            assert code[lazy.attrs["data-code"]] == analysis.code[lazy.attrs["data-code"]]
    # stored once however many kernels point at it, and only what the page can show
    referenced = {k.code_ref for g in analysis.graphs for k in g.kernels if k.code_ref}
    referenced |= {g.graph_code_ref for g in analysis.graphs if g.graph_code_ref}
    referenced |= {r for g in analysis.graphs for r in g.output_code_refs.values()}
    assert set(code) == referenced & set(analysis.code)
    assert len(strings) == len(set(strings))  # each string once


def test_findings_beyond_the_top_are_data_not_markup() -> None:
    analysis = hostile_many(FULL_FINDINGS + 30)
    page = parse(render(analysis, plotly_bundle=PLOTLY_STUB))
    articles = page.by_id("findings").find_all("article", cls="finding")
    assert len(articles) == FULL_FINDINGS
    for article, f in zip(articles, analysis.findings):
        assert article.attrs["id"].startswith(f.anchor)  # repeated anchors take a -2, -3 suffix
    assert page.by_id("lazy-findings").children == []
    assert "30 more findings" in page.by_id("findings").find("noscript").text()
    data = script_json(page, "tdiag-data")
    fields, rows, strings = data["findings"]["fields"], data["findings"]["rows"], data["strings"]
    lazy = [dict(zip(fields, row)) for row in rows]
    assert [r["rank"] for r in lazy] == list(range(FULL_FINDINGS + 1, len(analysis.findings) + 1))
    anchors = [a.attrs["id"] for a in articles] + [r["anchor"] for r in lazy]
    assert len(anchors) == len(set(anchors)) == len(analysis.findings)
    for r, f in zip(lazy, analysis.findings[FULL_FINDINGS:]):
        assert r["message"] == f.message
        assert _decode(strings, r["code"]) == f.code and r["line"] == f.line
        if f.suggestion and f.suggestion.patch:
            assert "".join(strings[i] for i in r["suggestion"][2]) == f.suggestion.patch
    # every finding, built or not, is marked in the source view
    badges = {a.attrs["href"][1:] for a in page.by_id("sources").find_all("a", cls="badge")}
    assert badges == set(anchors)


def test_recompiles_list_guard_failures(dom: Node, analysis: Analysis) -> None:
    section = dom.by_id("recompiles")
    rows = [r for t in section.find_all("table") for r in t.find("tbody").find_all("tr")]
    failures = [f for r in analysis.recompiles for f in r.failures]
    # torch's text with Dynamo's own names (L['x'], ___stack0) put as the user wrote them
    assert [r.find_all("td")[2].text() for r in rows] == [user_words(f.text) for f in failures]
    assert not any("L['" in r.find_all("td")[2].text() or "___stack" in r.find_all("td")[2].text() for r in rows)


def test_rank_view_only_for_multi_rank_runs(dom: Node) -> None:
    assert not dom.find_all(id="ranks")
    assert not dom.find_all("select", id="rank")
    multi = hostile_analysis(ranks=[0, 1])
    page = parse(render(multi, plotly_bundle=PLOTLY_STUB))
    rows = page.by_id("ranks").find("tbody").find_all("tr")
    with_ranks = [f for f in multi.findings if f.ranks]
    assert len(rows) == len(with_ranks)
    assert rows[0].find("code").text().startswith("DIV")  # divergence first
    for row in rows:
        f = next(f for f in with_ranks if row.find("a").attrs["href"] == f"#{f.anchor}")
        assert [c.text() for c in row.find_all("td", cls="num")] == [str(f.ranks.get(r, 0)) for r in multi.run.ranks]
    options = [o.attrs["value"] for o in page.by_id("rank").find_all("option")]
    assert options == [""] + [str(r) for r in multi.run.ranks]


def test_run_strings_are_escaped(html: str) -> None:
    body = html.replace(PLOTLY_STUB, "")
    assert SCRIPT_PAYLOAD not in body
    assert "<script>alert" not in body
    assert IMG_PAYLOAD not in body
    assert "<img" not in body
    # exactly the page's own five script elements
    assert len(re.findall(r"<script\b", body)) == 5
    assert 'href="javascript:' not in body


def test_hostile_strings_show_as_text(dom: Node, analysis: Analysis) -> None:
    assert not dom.find_all("img")
    texts = dom.by_id("findings").text()
    assert SCRIPT_PAYLOAD in texts and IMG_PAYLOAD in texts
    assert SCRIPT_PAYLOAD in dom.by_id("sources").text()


def test_json_for_script_escapes_what_ends_a_script() -> None:
    value = {"k": "</script><!-- & \u2028\u2029 >"}
    text = json_for_script(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == value


def test_split_highlight_is_one_based_end_exclusive() -> None:
    line = "    if y.sum() > 0:"
    assert split_highlight(line, 8, 19) == ("    if ", "y.sum() > 0", ":")
    assert split_highlight(line, None, None) == (line, "", "")
    assert split_highlight(line, 8, None) == ("    if ", "y.sum() > 0:", "")


def test_duplicate_anchors_get_suffixes() -> None:
    analysis = hostile_analysis()
    twin = Finding(**{**analysis.findings[0].__dict__, "path": "other/train.py", "suggestion": None})
    analysis.findings.append(twin)
    assert twin.anchor == analysis.findings[0].anchor
    page = parse(render(analysis, plotly_bundle=PLOTLY_STUB))
    ids = [a.attrs["id"] for a in page.find_all("article", cls="finding")]
    assert len(ids) == len(set(ids))


def test_empty_analysis_renders() -> None:
    page = parse(render(Analysis(), plotly_bundle=PLOTLY_STUB))
    assert page.by_id("findings").find(cls="empty")
    assert script_json(page, "tdiag-charts") == {}


def test_write_html_inlines_plotly(tmp_path, analysis: Analysis) -> None:
    out = tmp_path / "report.html"
    write_html(analysis, out)
    text = out.read_text(encoding="utf-8")
    assert text == render_html(analysis)
    # packed (deflated, base64) once, and inflating it gives plotly.js exactly
    assert payload_text(parse(text), "tdiag-plotly") == get_plotlyjs()
    assert len(re.findall(r"<script[ >]", text)) == 5
    assert len(text.encode()) < 0.5 * len(get_plotlyjs().encode())


def test_recorded_sample_renders() -> None:
    """The analysis of a real `tdiag run examples/train.py` (tests/data), not only the hand-built fixture."""
    sample = Path(__file__).parents[1] / "data" / "sample_analysis.json"  # committed: missing is a failure
    analysis = Analysis.from_dict(json.loads(sample.read_text(encoding="utf-8")))
    page = parse(render(analysis, plotly_bundle=PLOTLY_STUB))
    articles = page.by_id("findings").find_all("article", cls="finding")
    assert [a.attrs["id"] for a in articles] == [f.anchor for f in analysis.findings]
    assert len(page.by_id("graphs").find_all("details", cls="graph")) == len(analysis.graphs)
    assert set(script_json(page, "tdiag-charts")) == {d.attrs["id"] for d in page.find_all("div", cls="chart")}


def test_finding_compile_ids_link_to_their_graphs(dom: Node, analysis: Analysis) -> None:
    graph_ids = {d.attrs.get("id"): d for d in dom.find("section", id="graphs").find_all("details", cls="graph")}
    by_key = {g.key: f"graph-{i}" for i, g in enumerate(analysis.graphs)}
    linked = [f for f in analysis.findings if f.graph_keys]
    assert linked
    for f in linked:
        occurrences = _finding(dom, f).find("dl", cls="evidence")
        hrefs = [a.attrs["href"] for a in occurrences.find_all("a") if a.attrs.get("href", "").startswith("#graph-")]
        expected = [f"#{by_key[k]}" for k in f.graph_keys if k in by_key]
        assert hrefs == expected and all(h[1:] in graph_ids for h in hrefs)
    assert any(k not in by_key for f in linked for k in f.graph_keys)  # a graph not in the record stays plain text


def test_lazy_findings_carry_their_graph_links() -> None:
    many = hostile_many(FULL_FINDINGS + 5)
    data = script_json(parse(render(many, plotly_bundle=PLOTLY_STUB)), "tdiag-data")
    fields = data["findings"]["fields"]
    rows = [dict(zip(fields, row)) for row in data["findings"]["rows"]]
    by_key = {g.key: f"graph-{i}" for i, g in enumerate(many.graphs)}
    lazy = many.findings[FULL_FINDINGS:]
    assert [r["graph_refs"] for r in rows] == [[by_key.get(k) for k in f.graph_keys] for f in lazy]


def test_timeline_of_many_frames_is_one_trace_with_every_compile() -> None:
    from tdiag.analyzer.model import CompiledGraph
    from tdiag.reports.html.charts import TIMELINE_TRACE_LIMIT, recompile_timeline_chart

    frames = TIMELINE_TRACE_LIMIT + 20
    graphs = [CompiledGraph(compile_id=f"{i % frames}/{i // frames}", frame_id=i % frames,
                            frame_compile_id=i // frames, code_name=f"f{i % frames}", path="m.py", line=i % frames + 1,
                            start_time=float(i))
              for i in range(2 * frames)]  # every frame compiled twice
    (trace,) = recompile_timeline_chart(Analysis(graphs=graphs)).figure["data"]
    points = [(x, y) for x, y in zip(trace["x"], trace["y"]) if x is not None]
    assert len(points) == len(graphs)
    assert len({y for _, y in points}) == frames
    assert trace["x"].count(None) == frames - 1  # a gap between frames: no line joins two of them
    few = recompile_timeline_chart(Analysis(graphs=[g for g in graphs if g.frame_id < 3])).figure["data"]
    assert len(few) == 3  # a handful of frames keep a trace (and a colour) each
