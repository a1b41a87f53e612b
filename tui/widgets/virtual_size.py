"""Resizing a line-API view's content without relaying out the whole screen.

``virtual_size`` is a layout reactive in Textual: assigning it makes the next frame re-arrange every widget on the
screen (about 8 ms with the Findings screen), and the changed rows are only painted a frame after that. For a view
whose own size is fixed by the stylesheet, only its scrollbars depend on the content size, and Textual's
``_scroll_update`` re-sizes them, asking for a layout itself when a scrollbar appears or goes.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


def set_virtual_size(view: ScrollView, size: Size) -> None:
    if size == view.virtual_size:
        return
    if not view.is_mounted or view.size.height == 0:
        view.virtual_size = size  # not laid out yet: the first layout is coming anyway
        return
    scroll_update = getattr(view, "_scroll_update", None)  # private Textual API (8.x): feature-detected
    if scroll_update is None:
        view.virtual_size = size  # public path: one full layout more, same result
        return
    view.set_reactive(ScrollView.virtual_size, size)
    scroll_update(size)
    view.refresh()
