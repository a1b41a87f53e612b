"""jinja2 environment and the assets inlined into the page (one file, no sibling files, no network)."""

from __future__ import annotations

import base64
import functools
import os
import zlib
from importlib import resources
from pathlib import Path

import jinja2
from tdiag.analyzer.model import Analysis
from tdiag.reports.graph_facts import graph_facts

from tdiag.gc_pause import collection_paused
from tdiag.lean_dataclass import lean_dataclass

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
    env.globals["graph_facts"] = graph_facts
    from tdiag.reports.cache_text import cache_line

    env.globals["cache_line"] = cache_line
    from tdiag.analyzer.guard_words import user_words

    env.filters["user_words"] = user_words  # guard text with Dynamo's own names put as the user wrote them
    from tdiag.analyzer.fix_status import label

    env.globals["fix_label"] = label  # "Fix (unverified)": a fix line is a candidate until fix --verify proves it
    return env


@functools.cache
def plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


# Stored payloads are deflated (zlib format, what the browser's DecompressionStream("deflate") reads) and written in
# base85 (4 bytes in 5 characters; base64 takes 6): plotly.js goes from 4.8 MB to 1.84 MB, the data and generated
# code shrink 5-10x. The page inflates them itself. Base85's alphabet has no "/", so "</script" cannot occur; "<!--"
# could (it would change how the script element is parsed): such a payload falls back to base64.
BASE85 = "deflate-base85"
BASE64 = "deflate-base64"
_LEVEL = 6  # level 9 saves 0.2% on plotly.js for 25% more time


@lean_dataclass(frozen=True)
class Payload:
    id: str
    type: str  # a script type the browser never runs: application/json, or text/plain for code
    text: str
    encoding: str | None = None  # BASE85 or BASE64, or None for text as is


def pack(text: str) -> tuple[str, str]:
    """(encoding, packed text)."""
    deflated = zlib.compress(text.encode("utf-8"), _LEVEL)
    packed = base64.b85encode(deflated).decode("ascii")
    if "<!--" in packed:
        return BASE64, base64.b64encode(deflated).decode("ascii")
    return BASE85, packed


@functools.cache
def plotly_packed() -> tuple[str, str]:
    """plotly.js packed; kept in the user's cache directory per plotly version (deflating it takes ~0.5 s)."""
    import plotly

    cache_root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    cache = cache_root / "tdiag" / f"plotly-{plotly.__version__}.js.packed"
    try:
        encoding, _, packed = cache.read_text(encoding="ascii").partition("\n")
        if encoding in (BASE85, BASE64) and packed:
            return encoding, packed
    except OSError:
        pass
    encoding, packed = pack(plotly_js())
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_name(f"{cache.name}.{os.getpid()}")
        partial.write_text(f"{encoding}\n{packed}", encoding="ascii")
        os.replace(partial, cache)  # another process writing the same file at once is harmless
    except OSError:
        pass
    return encoding, packed


def render(analysis: Analysis, *, plotly_bundle: str | None = None, compress: bool = True) -> str:
    """Render the page; ``plotly_bundle`` replaces the inlined plotly.js (golden tests keep their file small),
    ``compress=False`` stores every payload as plain text (the golden file stays reviewable)."""
    # Rendering allocates many short-lived, acyclic objects; each allocation burst triggers cyclic collections that
    # walk the whole (large) Analysis again. On a 100k-event run that was about half the render time.
    with collection_paused():
        page = build_page(analysis)
        template = _environment().get_template("report.html.j2")
        return template.render(page=page, payloads=_payloads(page, plotly_bundle, compress))


def _payloads(page, plotly_bundle: str | None, compress: bool) -> list[Payload]:
    texts = [
        ("tdiag-charts", "application/json", page.charts_json),
        ("tdiag-code", "application/json", page.code_json),
        ("tdiag-data", "application/json", page.data_json),
    ]
    if not compress:
        plotly = plotly_js() if plotly_bundle is None else plotly_bundle
        return [Payload(*t) for t in texts] + [Payload("tdiag-plotly", "text/plain", plotly)]
    packed = [(id_, *pack(text)) for id_, _, text in texts]
    packed.append(("tdiag-plotly", *(plotly_packed() if plotly_bundle is None else pack(plotly_bundle))))
    return [Payload(id_, "application/octet-stream", text, encoding) for id_, encoding, text in packed]


