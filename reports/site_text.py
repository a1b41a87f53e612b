"""Fit a site (``path:line[:col]``) into a width without losing what a reader needs: the file name and the line.

Shared by the console summary and the TUI's site column. Directories go first, from the left
(``…/models/gpt2.py:12``); only a file name that alone is too wide is cut, in its middle, keeping its ending and
the line.
"""

from __future__ import annotations

from tdiag.lazy_regex import lazy_regex

ELLIPSIS = "…"
_LOCATION = lazy_regex(r"(:\d+)+$")  # ":line" or ":line:col" at the end


def shorten_site(site: str, width: int) -> str:
    """``site`` in at most ``width`` characters (when the line number alone fits)."""
    if len(site) <= width:
        return site
    head, sep, tail = site.rpartition("/")
    if sep:
        parts = head.split("/")
        for start in range(1, len(parts)):  # keep as many trailing directories as fit
            candidate = ELLIPSIS + "/" + "/".join(parts[start:]) + "/" + tail
            if len(candidate) <= width:
                return candidate
        for candidate in (ELLIPSIS + "/" + tail, tail):
            if len(candidate) <= width:
                return candidate
    return _cut_middle(tail, width)


def _cut_middle(name_and_location: str, width: int) -> str:
    """``very_long_module_name.py:12`` -> ``very_lo…name.py:12``: the location and the name's two ends stay."""
    match = _LOCATION.search(name_and_location)
    location = match.group(0) if match else ""
    name = name_and_location[: len(name_and_location) - len(location)]
    room = width - len(location) - len(ELLIPSIS)
    if room < 2:  # not even two characters of the name: the location is what matters most
        return (ELLIPSIS + location)[-width:] if width > 0 else ""
    left = room // 2
    right = room - left
    return name[:left] + ELLIPSIS + name[len(name) - right :] + location
