"""Layering promises (issue 15), enforced two ways:

- statically, by the import-linter contracts in pyproject.toml: every import statement counts, those inside
  functions (lazy imports) included;
- at run time, in a fresh interpreter where torch, textual, plotly and rich cannot be imported: a real record is
  analysed and every lint format, the JSON export and the shared finding view are produced from it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]


def _installed_layout(dest: Path) -> Path:
    """The package as installed (pyproject's package-dir mapping: tdiag.analyzer lives in analyzer/, ...): import-linter
    reads packages from one directory tree, which the editable install of this repository does not have."""
    mapping = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, source in sorted(mapping.items(), key=lambda kv: kv[0].count(".")):
        target = dest.joinpath(*package.split("."))
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(REPO / source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def test_import_contracts_hold(tmp_path):
    root = _installed_layout(tmp_path / "site")
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert lint_imports, "import-linter is in the test extra: pip install -e '.[test]'"
    out = subprocess.run(
        [lint_imports, "--no-cache", str(REPO / "pyproject.toml")], cwd=root, capture_output=True, text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=300,
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"{len(contracts)} kept" in out.stdout  # every contract was checked, none skipped


BLOCKED = """
import json, sys
for name in ("torch", "textual", "plotly", "rich"):
    sys.modules[name] = None  # any import of these, lazy ones included, now raises ImportError
from tdiag.analyzer import build
from tdiag.analyzer.model import Analysis
from tdiag.reports.lint import FORMATS, render
from tdiag.reports.view import finding_view

analysis = build({record!r})
outputs = {{fmt: render(analysis, fmt) for fmt in FORMATS}}
exported = json.dumps(analysis.to_dict(), default=str)
views = [finding_view(f, analysis.sources) for f in Analysis.from_dict(json.loads(exported)).findings]
loaded = sorted({{m.split(".")[0] for m in sys.modules if sys.modules[m] is not None}} & {{"torch", "textual", "plotly", "rich"}})
print(json.dumps({{"breaks": analysis.summary.graph_breaks, "codes": sorted({{f.code for f in analysis.findings}}),
                  "formats": sorted(fmt for fmt, text in outputs.items() if text), "views": len(views),
                  "findings": len(analysis.findings),
                  "loaded": loaded}}))
"""


def test_a_record_is_analysed_and_reported_without_torch_or_ui_libraries(recorded):
    run_dir, proc = recorded("data_dependent_if.py")
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([sys.executable, "-c", BLOCKED.format(record=str(run_dir))], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    from tdiag.reports.lint import FORMATS

    assert result["breaks"] == 1 and "BRK001" in result["codes"]  # the program has one data-dependent branch
    assert result["formats"] == sorted(FORMATS)  # every lint format produced output
    assert result["views"] == result["findings"] > 0  # every finding read back from JSON has its view
    assert result["loaded"] == []


CHECK = """
import sys, json
import {module}
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'textual', 'plotly', 'rich'))))
"""


def _loaded_by(module: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", CHECK.format(module=module)], capture_output=True, text=True, check=True)
    return {m.split(".")[0] for m in json.loads(out.stdout)}


def test_importing_the_analyzer_or_the_record_loads_no_torch_and_no_ui():
    assert _loaded_by("tdiag.analyzer.rules") == set()
    assert _loaded_by("tdiag.record") == set()
    assert _loaded_by("tdiag.reports.view") == set()
    assert "textual" not in _loaded_by("tdiag.reports.console") and "torch" not in _loaded_by("tdiag.reports.console")
