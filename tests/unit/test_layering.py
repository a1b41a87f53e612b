"""Layering promises: a record is analysable without torch; reports never import textual."""

import subprocess
import sys

CHECK = """
import sys, json
import {module}
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'textual', 'plotly', 'rich'))))
"""


def loaded_by(module: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", CHECK.format(module=module)], capture_output=True, text=True, check=True)
    return {m.split(".")[0] for m in __import__("json").loads(out.stdout)}


def test_analyzer_needs_no_torch_and_no_ui():
    assert loaded_by("tdiag.analyzer") == set()
    assert loaded_by("tdiag.analyzer.rules") == set()


def test_reports_do_not_import_textual():
    assert "textual" not in loaded_by("tdiag.reports.console")
    assert "torch" not in loaded_by("tdiag.reports.console")


def test_record_module_is_stdlib_only():
    assert loaded_by("tdiag.record") == set()


BLOCKED = """
import sys
for name in ("torch", "textual", "plotly"):
    sys.modules[name] = None  # any import of these now raises ImportError
from tdiag.analyzer import build
a = build({record!r})
print(a.summary.graph_breaks, "BRK001" in {{f.code for f in a.findings}})
"""


def test_a_record_is_analysable_without_torch(recorded):
    run_dir, _ = recorded("data_dependent_if.py")
    out = subprocess.run([sys.executable, "-c", BLOCKED.format(record=str(run_dir))], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "True"]
