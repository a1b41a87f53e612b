"""A virtual table for thousands of rows: only the rows on screen are rendered, and refiltering is a list swap.

Textual's DataTable measures every cell of every row it is given, which costs about a second per refilter of 5k
findings; this widget renders a row's strip the first time it scrolls into view and caches it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from tdiag.tui.widgets.virtual_size import set_virtual_size
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

CURSOR_STYLE = Style(bgcolor="#0b5394", bold=True)
ZEBRA_STYLE = Style(bgcolor="#202020")


def header_content(columns: Sequence[tuple[str, int]], action: str | None = None) -> Content:
    """Column labels laid out like the rows; with ``action``, each is a link to ``action('label')`` (click to sort)."""
    parts = []
    for label, width in columns:
        padded = f" {label:<{width}} "
        link = f" @click={action}('{label}')" if action else ""
        parts.append(Content.from_markup(f"[bold{link}]$text[/]", text=padded))
    return Content("").join(parts)


class RowTable(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move(-1000000000)", "First", show=False),
        Binding("end", "move(1000000000)", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    cursor_row: reactive[int] = reactive(0)

    class Highlighted(Message):
        def __init__(self, table: RowTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

    class Selected(Highlighted):
        pass

    def __init__(self, columns: Sequence[tuple[str, int]], cells: Callable[[int], Sequence[Text]], **kwargs) -> None:
        super().__init__(**kwargs)
        self.columns = list(columns)
        self.cells = cells  # item -> one Text per column
        self.items: list[int] = []
        self._strips: dict[int, Strip] = {}
        self._width = sum(width + 2 for _, width in self.columns)

    def set_items(self, items: list[int], cursor: int = 0) -> None:
        self.items = items
        set_virtual_size(self, Size(self._width, len(items)))
        self.set_reactive(RowTable.cursor_row, max(0, min(cursor, len(items) - 1)))
        self._reveal(center=True)
        self.refresh()
        self.post_message(self.Highlighted(self, self.cursor_row))

    @property
    def cursor_item(self) -> int | None:
        return self.items[self.cursor_row] if 0 <= self.cursor_row < len(self.items) else None

    def watch_cursor_row(self, old: int, new: int) -> None:
        top = self.scroll_offset.y
        self._reveal()
        if self.scroll_offset.y == top:
            # Only the two rows whose cursor style changed need painting; a whole table repaint is most of a key.
            self.refresh_line(old)
            self.refresh_line(new)
        else:
            self.refresh()
        self.post_message(self.Highlighted(self, new))

    def action_move(self, delta: int) -> None:
        if self.items:
            self.cursor_row = max(0, min(self.cursor_row + delta, len(self.items) - 1))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 1))

    def action_select(self) -> None:
        if self.items:
            self.post_message(self.Selected(self, self.cursor_row))

    def on_click(self, event) -> None:
        row = self.scroll_offset.y + event.y
        if 0 <= row < len(self.items):
            if row == self.cursor_row:
                self.action_select()
            self.cursor_row = row

    def _reveal(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            self.call_after_refresh(self._reveal, center)
            return
        top, row = self.scroll_offset.y, self.cursor_row
        if top <= row < top + height:
            return
        target = row - height // 2 if center else (row if row < top else row - height + 1)
        self.scroll_to(y=max(0, target), animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if row >= len(self.items):
            return Strip.blank(width)
        strip = self._row_strip(self.items[row]).crop(scroll_x, scroll_x + width).extend_cell_length(width)
        if row == self.cursor_row:
            return strip.apply_style(CURSOR_STYLE)
        return strip.apply_style(ZEBRA_STYLE) if row % 2 else strip

    def _row_strip(self, item: int) -> Strip:
        strip = self._strips.get(item)
        if strip is None:
            segments: list[Segment] = []
            for (_, width), cell in zip(self.columns, self.cells(item)):
                text = cell.copy()
                text.truncate(width, overflow="ellipsis", pad=True)
                segments.append(Segment(" "))
                segments.extend(text.render(self.app.console, end=""))
                segments.append(Segment(" "))
            strip = self._strips[item] = Strip(segments)
        return strip


class RowTableHeader(Static):
    pass
