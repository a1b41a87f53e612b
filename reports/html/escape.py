"""Escaping for data that leaves Python for the page.

HTML text and attributes are escaped by jinja2's autoescape; this module covers the two places autoescape does not
reach: JSON embedded in ``<script>`` elements, and URLs taken from the run.
"""

from __future__ import annotations

import json
from typing import Any

# ``</script>`` or ``<!--`` inside a script element ends or corrupts it whatever its type, and U+2028/2029 break
# older JS parsers; the \\u escapes keep the JSON value identical for JSON.parse.
# A list of str.replace calls rather than str.translate: on the megabytes a large run embeds, replace is ~50x faster.
_SCRIPT_UNSAFE = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def json_for_script(value: Any) -> str:
    """Serialize ``value`` as JSON that is safe inside any ``<script>`` element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False, default=_default)
    for bad, escaped in _SCRIPT_UNSAFE:
        if bad in text:
            text = text.replace(bad, escaped)
    return text


def _default(value: Any) -> Any:
    # plotly figures can carry numpy arrays and scalars
    tolist = getattr(value, "tolist", None)
    if tolist is not None:
        return tolist()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def safe_url(url: str | None) -> str | None:
    """Only http(s) links from the run become hrefs; anything else (``javascript:``, ``data:``) is shown as text."""
    if url and url.lower().startswith(("https://", "http://")):
        return url
    return None


def plotly_text(text: str) -> str:
    """Run text for plotly labels and hovers: plotly reads a subset of HTML there (``<a href>``, ``<b>``, ``<br>``),
    so tags from the run are turned into entities, which plotly shows as the literal characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
