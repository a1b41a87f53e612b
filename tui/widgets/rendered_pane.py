"""A scrollable pane for one Rich renderable, drawn through the line API from lines rendered once per width.

A Static inside a VerticalScroll re-renders its renderable to measure it, renders it again to paint, and relayouts
the whole screen whenever its content changes. Here a new renderable costs one render, and swapping it repaints this
pane only: the pane's size is set by the stylesheet, never by its content.
"""

from __future__ import annotations

from collections.abc import Hashable

from rich.console import RenderableType
from rich.text import Text
from tdiag.tui.widgets.virtual_size import set_virtual_size
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize

CACHED_RENDERS = 64  # (key, width) renders kept, so stepping back over recent items costs nothing


class RenderedPane(ScrollView, can_focus=True):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rendered: RenderableType = Text("")
        self._key: Hashable = None
        self._lines: list[Strip] = []
        self._renders: dict[tuple[Hashable, int], list[Strip]] = {}

    def show_renderable(self, renderable: RenderableType, key: Hashable) -> None:
        """``key`` names the content, so a renderable already drawn at this width is reused."""
        self.rendered, self._key = renderable, key
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._layout_lines()
        self.refresh()

    def on_resize(self) -> None:
        self._layout_lines()

    def _layout_lines(self) -> None:
        width, height = self.content_size
        if width <= 0:
            return  # not laid out yet; on_resize comes back
        lines = self._render_at(width)
        if len(lines) > height and self.styles.overflow_y != "hidden":
            # The vertical scrollbar will take its columns, as it would from a Static in a VerticalScroll.
            width = max(1, width - self.styles.scrollbar_size_vertical)
            lines = self._render_at(width)
        self._lines = lines
        set_virtual_size(self, Size(width, len(lines)))

    def _render_at(self, width: int) -> list[Strip]:
        cache_key = (self._key, width)
        lines = self._renders.get(cache_key)
        if lines is None:
            if len(self._renders) >= CACHED_RENDERS:
                del self._renders[next(iter(self._renders))]  # the oldest
            visual = visualize(self, self.rendered)
            lines = self._renders[cache_key] = Visual.to_strips(self, visual, width, None, self.visual_style)
        return lines

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        row = scroll_y + y
        if row >= len(self._lines):
            return Strip.blank(width, self.visual_style.rich_style)
        return self._lines[row].crop_extend(scroll_x, scroll_x + width, self.visual_style.rich_style)
