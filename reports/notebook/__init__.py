"""The Analysis as a notebook shows it: a static HTML view (``_repr_html_``) and plain text (``_repr_pretty_``).

Notebooks are often shown by viewers that strip scripts and style sheets (GitHub's, an untrusted notebook in VS Code,
nbconvert's sanitised export), so the view is plain HTML: inline styles only as decoration, ``<details>`` for what is
expandable, every word readable with neither. The finding's content comes from the shared view model
(``reports/view.py``) and the source excerpt from the HTML report's ``excerpt``; only the layout is here.
"""

from __future__ import annotations

from .render import to_html, to_text

__all__ = ["to_html", "to_text"]
