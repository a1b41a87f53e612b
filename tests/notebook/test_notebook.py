"""tdiag in a real Jupyter kernel: `%load_ext tdiag`, `%%tdiag`, `%tdiag on/off/report`, the Analysis repr, a failing
captured cell; checked against torch's own accounting of the same calls run as a plain script without tdiag.

One kernel for the module: examples/notebook.ipynb (what a user opens) plus the cells of notebook_cells.py.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
from notebook_cells import NOT_IN_ORACLE, notebook_under_test, oracle_script  # noqa: E402
from oracle import account  # noqa: E402

RECORD = re.compile(r"^record: (\S+)$", re.M)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("notebook")


@pytest.fixture(scope="module")
def executed(workdir, session_env):
    nb = notebook_under_test()
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=240, resources={"metadata": {"path": str(workdir)}})
    client.execute(env=session_env)
    nbformat.write(nb, workdir / "executed.ipynb")
    return nb


@pytest.fixture(scope="module")
def oracle(workdir, session_env, executed):
    """torch's own TORCH_TRACE of the same calls in a plain python process, no tdiag anywhere."""
    program = workdir / "oracle_program.py"
    program.write_text(oracle_script(executed), encoding="utf-8")
    acc = account(program, session_env, workdir / "trace")
    assert acc.returncode == 0, acc.stdout
    return acc


def cell(nb, start: str):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(start))


def exact(nb, source: str):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source == source)


def outputs(c, kind: str) -> list[str]:
    """The cell's text of one kind: "html", "plain" (display data), "stream", "error"."""
    out = []
    for o in c.outputs:
        if kind == "stream" and o.output_type == "stream":
            out.append(o.text)
        elif kind == "error" and o.output_type == "error":
            out.append(o.ename + ": " + o.evalue)
        elif kind in ("html", "plain") and o.output_type in ("display_data", "execute_result"):
            out.append(o.data.get("text/html" if kind == "html" else "text/plain", ""))
    return out


def tdiag_html(c) -> str:
    found = [h for h in outputs(c, "html") if "tdiag-notebook" in h]
    assert len(found) == 1, [o.output_type for o in c.outputs]
    return found[0]


def records(nb, workdir: Path) -> dict[int, Path]:
    """execution count of a captured cell -> the record its tdiag output names (`%tdiag report` repeats one)."""
    found = {}
    for c in (c for c in nb.cells if c.cell_type == "code" and not c.source.startswith("%tdiag report")):
        for text in outputs(c, "plain"):
            for match in RECORD.finditer(text):
                found[c.execution_count] = workdir / match.group(1)
    return found


def _first_guard(payload: str) -> str:
    """torch's recompile_reasons payload: one "0/1: guard" line, or a JSON list of them (newest cache entry first)."""
    text = payload.strip()
    first = json.loads(text)[0] if text.startswith("[") else text.splitlines()[0]
    return re.sub(r"^\d+/\d+: ", "", first)


def test_load_ext_is_quiet_and_cheap(executed):
    load = cell(executed, "%load_ext tdiag")
    assert load.outputs == []


def test_tdiag_cell_shows_break_and_recompile_with_the_cells_lines(executed):
    defs, captured = cell(executed, "import torch"), cell(executed, "%%tdiag\nout = cstep(x, 1.0)")
    html = tdiag_html(captured)
    d, n = defs.execution_count, captured.execution_count
    assert f"tdiag</b> &middot; In [{n}]" in html or f"tdiag</b> · In [{n}]" in html
    # the break: in the cell that defined `step`, on the `if`, with that cell's line
    assert "<code style=\"font-family" in html and f"In [{d}]:6:8</code>" in html
    assert "BRK001" in html and "if y.sum() &gt; 0:" in html
    # the recompile: at a line of the captured cell, with the guard that failed
    assert "RCP001" in html and f"In [{n}]:3</code>" in html
    assert f"In [{n}]:2</code>" not in html  # both recompiles came from line 3's call, none from line 2's
    assert "out = cstep(torch.ones(16), 1.0)" in html
    assert "tensor &#39;x&#39; size mismatch at index 0. expected 8, actual 16" in html
    # the cell's value is still its result
    assert any("torch.Size([16])" in t for t in outputs(captured, "plain"))


def test_recompile_of_an_earlier_cells_function_is_the_later_cells(executed):
    on = cell(executed, "%tdiag on")
    later = executed.cells[executed.cells.index(on) + 1]
    html = tdiag_html(later)
    n, d = later.execution_count, cell(executed, "import torch").execution_count
    assert f"In [{n}]:1</code>" in html and "RCP001" in html
    assert f"step (In [{d}]:4) recompiled" in html
    assert "tensor &#39;x&#39; rank mismatch. expected 1, actual 2" in html
    # neither the magic cells nor a cell after `%tdiag off` are captured
    for start in ("%tdiag on", "%tdiag off", "out = cstep(torch.ones(2, 2, 2, 2, 2)"):
        assert not [h for h in outputs(cell(executed, start), "html") if "tdiag-notebook" in h], start


def test_report_writes_the_single_file_html(executed, workdir):
    report = cell(executed, "%tdiag report --html")
    assert any("wrote tdiag-notebook-report.html" in t for t in outputs(report, "stream"))
    page = (workdir / "tdiag-notebook-report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "RCP001" in page


def test_report_inline_is_the_last_capture_expanded(executed):
    report = exact(executed, "%tdiag report")
    failing = cell(executed, "%%tdiag\nout = cstep(torch.ones(2, 2, 2, 2)")
    html = tdiag_html(report)
    assert f"In [{failing.execution_count}]" in html and "<details open>" in html and "<details>" not in html
    assert "failed guard:" in html and "tensor &#39;x&#39; rank mismatch. expected 3, actual 4" in html


def test_analysis_repr_in_the_notebook(executed):
    api = cell(executed, "import tdiag")
    html = tdiag_html(api)
    assert "RCP001" in html and f"In [{api.execution_count}]:4</code>" in html
    plain = next(t for t in outputs(api, "plain") if "tdiag" in t)
    assert "what torch.compile did" in plain and f"In [{api.execution_count}]:4" in plain and "RCP001" in plain


def test_error_in_a_captured_cell_shows_findings_then_raises(executed):
    failing = cell(executed, "%%tdiag\nout = cstep(torch.ones(2, 2, 2, 2)")
    kinds = [o.output_type for o in failing.outputs]
    assert kinds.index("display_data") < kinds.index("error"), kinds
    assert outputs(failing, "error") == ["ValueError: boom in a captured cell"]
    traceback = "\n".join(next(o for o in failing.outputs if o.output_type == "error").traceback)
    assert "magics.py" not in traceback and 'raise ValueError("boom in a captured cell")' in traceback
    html = tdiag_html(failing)
    assert "RCP001" in html and f"In [{failing.execution_count}]:2</code>" in html


def test_records_are_on_disk_and_match_torchs_accounting(executed, workdir, oracle):
    from tdiag.analyzer import build

    found = records(executed, workdir)
    captured = [c.execution_count for c in executed.cells if c.cell_type == "code" and "tdiag-notebook" in
                "".join(outputs(c, "html")) and NOT_IN_ORACLE not in c.metadata.get("tags", [])]
    api, report = cell(executed, "import tdiag").execution_count, exact(executed, "%tdiag report").execution_count
    assert sorted(found) == sorted(set(captured) - {api, report}) and len(found) == 3  # %%tdiag, %tdiag on, the failing cell
    assert all(path.name.startswith(f"notebook-in{n}-") for n, path in found.items())
    found[api] = Path(outputs(cell(executed, "print(rec.path)"), "stream")[0].strip())
    analyses = [build(found[n]) for n in sorted(found)]
    guards = [f.text for a in analyses for r in a.recompiles for f in r.failures[:1]]
    torch_guards = [_first_guard(reason) for reason in oracle.recompile_reasons]
    assert guards == torch_guards and len(guards) == 8
    assert sum(a.summary.graph_breaks for a in analyses) == len(oracle.breaks)
    # `tdiag lint` (and so `tdiag tui`) reads the record of a cell
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "tdiag", "lint", str(found[min(found)]), "--format", "concise"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "BRK001" in proc.stdout and "In [" in proc.stdout, proc.stderr


@pytest.mark.browser
@pytest.mark.parametrize("sanitize", [False, True], ids=["nbconvert", "nbconvert-sanitized"])
def test_converted_notebook_shows_findings_without_javascript(executed, workdir, browser, artifacts, sanitize):
    """nbconvert's HTML in chromium with scripts off: the findings, sites and cell lines are on screen; the
    sanitised export (styles and unknown tags dropped, as strict viewers do) still reads."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter(sanitize_html=sanitize).from_notebook_node(executed)
    page_file = workdir / f"executed-{'sanitized' if sanitize else 'plain'}.html"
    page_file.write_text(body, encoding="utf-8")
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1100, "height": 900})
    try:
        page = ctx.new_page()
        page.goto(page_file.as_uri())
        captured = cell(executed, "%%tdiag\nout = cstep(x, 1.0)").execution_count
        view = page.locator(".tdiag-notebook").first
        assert view.is_visible()
        text = view.inner_text()
        for expected in ("BRK001", "RCP001", f"In [{captured}]:3", "if y.sum() > 0:", "fix (unverified): compute both branches",
                         "out = cstep(torch.ones(16), 1.0)"):
            assert expected in text, expected
        assert page.locator(".tdiag-finding").count() >= 7
        if not sanitize:
            # compact: the evidence waits behind <details>, the finding's own line does not
            assert not page.get_by_text("failed guard:").first.is_visible()
            assert page.locator(".tdiag-line").first.is_visible()
            view.screenshot(path=str(artifacts / "notebook-cell.png"))
            page.locator(".tdiag-notebook").last.screenshot(path=str(artifacts / "notebook-report.png"))
            page.screenshot(path=str(artifacts / "notebook-page.png"), full_page=False)
    finally:
        ctx.close()


def test_load_ext_imports_nothing_heavy(tmp_path):
    """`%load_ext tdiag` registers the magic only: no torch, no capture, no renderer until a cell is captured."""
    import subprocess

    code = ("import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
            "shell = InteractiveShell.instance()\nshell.run_line_magic('load_ext', 'tdiag')\n"
            "heavy = [m for m in ('torch', 'tdiag.api', 'tdiag.tracer', 'tdiag.analyzer', 'tdiag.reports', 'jinja2')"
            " if m in sys.modules]\nprint('magic' if 'tdiag' in shell.magics_manager.magics['cell'] else 'none', heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.stdout.strip() == "magic []", proc.stdout + proc.stderr


def test_terminal_ipython_names_its_cells_too(tmp_path, session_env):
    """The IPython terminal compiles cells as <ipython-input-N-hash> (no ipykernel file names): same labels."""
    import subprocess

    code = '''from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_cell("%load_ext tdiag", store_history=True)
shell.run_cell("""import torch
def f(x):
    if x.sum() > 0:
        return x + 1
    return x - 1
cf = torch.compile(f, backend="eager")""", store_history=True)
shell.run_cell("%%tdiag\\ncf(torch.ones(3))", store_history=True)
'''
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=session_env)
    assert proc.returncode == 0, proc.stderr
    assert "tdiag: In [3]" in proc.stdout and re.search(r"^In \[2\]:3:8 +BRK001 ", proc.stdout, re.M), proc.stdout
    assert "Out[3]: tensor([2., 2., 2.])" in proc.stdout
