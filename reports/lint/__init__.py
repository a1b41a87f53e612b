"""Lint output: one renderer module per format (ruff's format set, kebab-case), registered in reports/registry.py.

Every renderer module has ``render(analysis, options) -> str`` and reads only the Analysis it is given: the caller
filters findings (``--select``/``--ignore``) by handing over a copy whose ``findings`` are the selected ones.
Human formats (``full``, ``concise``) end with a "Found N findings" footer; machine formats print nothing else.
The format list, extensions and which are human-readable live in the one reporter registry (``LINT_FORMATS``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from tdiag.reports.lint.options import LintOptions
from tdiag.reports.registry import LINT_FORMATS

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis

FORMATS = tuple(LINT_FORMATS)
DEFAULT_FORMAT = "full"
COUNT_FORMATS = frozenset({"statistics", "statistics-json"})  # counts per code rather than a listing
LISTING_FORMATS = tuple(fmt for fmt in FORMATS if fmt not in COUNT_FORMATS)
HUMAN_FORMATS = frozenset(fmt for fmt in LISTING_FORMATS if LINT_FORMATS[fmt][2])  # end with the footer


def render(analysis: Analysis, fmt: str = DEFAULT_FORMAT, options: LintOptions | None = None) -> str:
    module = importlib.import_module(f"tdiag.reports.lint.{LINT_FORMATS[fmt][0]}")  # only the format asked for
    return module.render(analysis, options or LintOptions())


__all__ = ["COUNT_FORMATS", "DEFAULT_FORMAT", "FORMATS", "HUMAN_FORMATS", "LISTING_FORMATS", "LintOptions", "render"]
