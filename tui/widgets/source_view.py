"""A recorded source file with a gutter: one mark per line that broke a graph, caused a recompile or feeds kernels.

Uses Textual's line API, so a file of any length costs only the lines on screen.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from tdiag.reports.cost_heat import LineHeat
from tdiag.tui.format import SOURCE_NOT_AVAILABLE
from tdiag.tui.index import MARK_BREAK, MARK_FINDING, MARK_KERNEL, MARK_RECOMPILE, LineMarks
from tdiag.tui.widgets.lazy_highlight import LazyHighlight
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

# Letters rather than glyphs, so the gutter reads the same in a monochrome terminal and in a screen reader.
MARK_GLYPHS = {
    MARK_BREAK: ("B", Style(color="red", bold=True)),
    MARK_RECOMPILE: ("R", Style(color="yellow", bold=True)),
    MARK_FINDING: ("!", Style(color="magenta", bold=True)),
    MARK_KERNEL: ("K", Style(color="cyan")),
}
CURSOR_STYLE = Style(bgcolor="grey23")
GUTTER_STYLE = Style(dim=True)
# Line-number background by measured heat level (reports/cost_heat.py: 1 cool .. 4 hottest line of the record).
HEAT_STYLES = {
    1: Style(bgcolor="#3d2b00", color="white"),
    2: Style(bgcolor="#6b3a00", color="white"),
    3: Style(bgcolor="#9c3400", color="white", bold=True),
    4: Style(bgcolor="#c41e00", color="white", bold=True),
}


class SourceView(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
        Binding("home", "move(-1000000)", "Top", show=False),
        Binding("end", "move(1000000)", "Bottom", show=False),
        Binding("n", "next_mark(1)", "Next mark"),
        Binding("N,p", "next_mark(-1)", "Prev mark"),
        Binding("enter", "select", "Findings here"),
    ]

    cursor_line: reactive[int] = reactive(1)

    class LineChanged(Message):
        def __init__(self, path: str, line: int) -> None:
            super().__init__()
            self.path = path
            self.line = line

    class LineSelected(LineChanged):
        pass

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.path = ""
        self.available = False
        self.marks: dict[int, LineMarks] = {}
        self.heat: dict[int, LineHeat] = {}
        self._text: LazyHighlight | None = None  # None: the file was not recorded, and _missing says so
        self._missing = Text("")
        self._strips: dict[int, Strip] = {}
        self._number_width = 3
        self._highlighted: dict[str, LazyHighlight] = {}  # path -> lines, so going back to a file costs nothing

    def show(self, path: str, source: str | None, marks: dict[int, LineMarks], line: int = 1,
             heat: dict[int, LineHeat] | None = None) -> None:
        self.path = path
        self.available = source is not None
        self.marks = marks
        self.heat = heat or {}
        if source is None:
            self._text = None
            self._missing = Text(f"{SOURCE_NOT_AVAILABLE}: {path} was not recorded", style="dim italic")
            widest = self._missing.cell_len
        else:
            self._text = self._highlighted.get(path) or self._highlighted.setdefault(path, LazyHighlight(source))
            widest = max((cell_len(line) for line in self._text.plain), default=0)
        self._strips.clear()
        self._number_width = max(3, len(str(self.line_count)))
        self.virtual_size = Size(widest + self._gutter_width, self.line_count)
        self.cursor_line = self._clamp(line)
        # The first show happens before layout, when the view has no height to centre in yet.
        self.call_after_refresh(self._reveal_cursor, True)
        self.refresh()

    @property
    def line_count(self) -> int:
        return self._text.line_count if self._text is not None else 1

    @property
    def _gutter_width(self) -> int:
        return self._number_width + 3

    def _clamp(self, line: int) -> int:
        return max(1, min(line, self.line_count))

    def watch_cursor_line(self, old: int, new: int) -> None:
        self.refresh()
        if self.path:
            self.post_message(self.LineChanged(self.path, new))

    def action_move(self, delta: int) -> None:
        self.cursor_line = self._clamp(self.cursor_line + delta)
        self._reveal_cursor()

    def action_next_mark(self, direction: int) -> None:
        lines = sorted(self.marks) if direction > 0 else sorted(self.marks, reverse=True)
        target = next((n for n in lines if (n - self.cursor_line) * direction > 0), None)
        if target is not None:
            self.cursor_line = self._clamp(target)
            self._reveal_cursor(center=True)

    def action_select(self) -> None:
        if self.path:
            self.post_message(self.LineSelected(self.path, self.cursor_line))

    def move_to(self, line: int) -> None:
        self.cursor_line = self._clamp(line)
        self.call_after_refresh(self._reveal_cursor, True)

    def _reveal_cursor(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height or 1
        row = self.cursor_line - 1
        top = self.scroll_offset.y
        if center and not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def on_click(self, event) -> None:
        line = self.scroll_offset.y + event.y + 1
        if 1 <= line <= self.line_count:
            self.cursor_line = line

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        number = scroll_y + y + 1
        width = self.scrollable_content_region.width
        if number > self.line_count:
            return Strip.blank(width)
        code = self._code_strip(number).crop(scroll_x, scroll_x + max(0, width - self._gutter_width))
        strip = Strip.join([self._gutter(number), code]).extend_cell_length(width).crop(0, width)
        if number == self.cursor_line and self.available:
            strip = strip.apply_style(CURSOR_STYLE)
        return strip

    def _gutter(self, number: int) -> Strip:
        marks = self.marks.get(number)
        glyph, style = MARK_GLYPHS[marks.primary] if marks and marks.kinds else (" ", GUTTER_STYLE)
        if not self.available:
            return Strip([Segment(" " * self._gutter_width)])
        heat = self.heat.get(number)
        number_style = HEAT_STYLES[heat.level] if heat is not None and heat.level in HEAT_STYLES else GUTTER_STYLE
        return Strip([Segment(f"{number:>{self._number_width}} ", number_style), Segment(glyph, style),
                      Segment(" ")])

    def heat_level(self, number: int) -> int:
        """The gutter's heat level on a line (0: no measured time): what the line number's background shows."""
        heat = self.heat.get(number)
        return heat.level if heat is not None else 0

    def _code_strip(self, number: int) -> Strip:
        strip = self._strips.get(number)
        if strip is None:
            text = self._text.line(number) if self._text is not None else self._missing
            segments = list(text.render(self.app.console, end=""))
            strip = self._strips[number] = Strip(segments)
        return strip
