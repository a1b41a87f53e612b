"""Lint output: one renderer module per format, registered by name (ruff's format set, kebab-case).

Every renderer is ``render(analysis, options) -> str`` and reads only the Analysis it is given: the caller
filters findings (``--select``/``--ignore``) by handing over a copy whose ``findings`` are the selected ones.
Human formats (``full``, ``concise``) end with a "Found N findings" footer; machine formats print nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tdiag.reports.lint import concise, full, github, json_array, json_lines, junit, sarif
from tdiag.reports.lint.options import LintOptions

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis

Renderer = Callable[["Analysis", LintOptions], str]

RENDERERS: dict[str, Renderer] = {
    "full": full.render,
    "concise": concise.render,
    "json": json_array.render,
    "json-lines": json_lines.render,
    "sarif": sarif.render,
    "github": github.render,
    "junit": junit.render,
}
DEFAULT_FORMAT = "full"
HUMAN_FORMATS = frozenset({"full", "concise"})


def render(analysis: Analysis, fmt: str = DEFAULT_FORMAT, options: LintOptions | None = None) -> str:
    return RENDERERS[fmt](analysis, options or LintOptions())


__all__ = ["DEFAULT_FORMAT", "HUMAN_FORMATS", "RENDERERS", "LintOptions", "render"]
