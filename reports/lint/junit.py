"""``--format junit``: JUnit XML as CI test-report viewers read it, laid out as ruff's: a test suite per file,
a failing test case per finding (``org.tdiag.CODE``), and one passing case when there is nothing to report."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby
from typing import TYPE_CHECKING

from tdiag.reports.lint.diagnostics import display_column, ordered
from tdiag.analyzer.fix_status import label as fix_label

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis
    from tdiag.reports.lint.options import LintOptions


def render(analysis: Analysis, options: LintOptions) -> str:
    findings = ordered(analysis.findings)
    root = ET.Element("testsuites", name="tdiag", tests=str(max(1, len(findings))), failures=str(len(findings)), errors="0")
    if not findings:
        suite = ET.SubElement(root, "testsuite", name="tdiag", tests="1", disabled="0", errors="0", failures="0", package="org.tdiag")
        ET.SubElement(suite, "testcase", name="No findings")
    for path, group in groupby(findings, key=lambda f: f.path):
        cases = list(group)
        suite = ET.SubElement(
            root, "testsuite", name=path, tests=str(len(cases)), disabled="0", errors="0", failures=str(len(cases)), package="org.tdiag"
        )
        classname = path.removesuffix(".py")  # ruff's: the path without its extension, folders kept
        for f in cases:
            case = ET.SubElement(
                suite, "testcase", name=f"org.tdiag.{f.code}", classname=classname, line=str(f.line), column=str(display_column(f))
            )
            failure = ET.SubElement(case, "failure", message=f.message, type=f.severity)
            failure.text = f"line {f.line}, col {display_column(f)}, {f.message}" + (f"\n{fix_label('help', f)}: {f.fix}" if f.fix else "")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
