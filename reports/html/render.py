"""jinja2 environment and the assets inlined into the page (one file, no sibling files, no network)."""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Iterator
from importlib import resources

import jinja2
from tdiag.analyzer.model import Analysis

from .page import build_page

_PACKAGE = "tdiag.reports.html"


@functools.cache
def _asset(name: str) -> str:
    return resources.files(_PACKAGE).joinpath("templates", name).read_text(encoding="utf-8")


@functools.cache
def _environment() -> jinja2.Environment:
    # importlib.resources rather than PackageLoader: the editable install maps tdiag.reports to a folder that
    # jinja's own package lookup does not promise to find
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_asset),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["asset"] = _asset
    return env


@functools.cache
def plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def render(analysis: Analysis, *, plotly_bundle: str | None = None) -> str:
    """Render the page; ``plotly_bundle`` replaces the inlined plotly.js (golden tests keep their file small)."""
    with _no_gc():
        page = build_page(analysis)
        template = _environment().get_template("report.html.j2")
        return template.render(page=page, plotly_js=plotly_js() if plotly_bundle is None else plotly_bundle)


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    # Rendering allocates many short-lived, acyclic objects; each allocation burst triggers cyclic collections that
    # walk the whole (large) Analysis again. On a 100k-event run that was about half the render time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
