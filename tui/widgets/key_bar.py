"""The key bar at the bottom of every screen: the bindings in force, drawn as one line of text.

It shows what Textual's Footer shows, in the same colours, but Footer mounts a widget per key and remounts them all
whenever the focus or the screen changes; that was about 40% of switching screens with a large record. Here a change
of bindings rebuilds one Text, and a click is mapped back to its key.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


class KeyBar(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--disabled"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        text-overflow: clip;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--disabled {
            text-style: dim;
        }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()
        self._spans: list[tuple[int, int, str]] = []  # (start, end, key) per entry, for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen and screen.app.app_focus:
            self._rebuild()

    def _rebuild(self) -> None:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        disabled_style = self.get_component_rich_style("key-bar--disabled", partial=True)
        text, spans, seen = Text(), [], set()
        # Same selection as Footer: shown bindings, one entry per action, in binding order.
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            start = len(text)
            text.append(f" {self.app.get_key_display(binding)} ", key_style)
            text.append(f"{binding.description} ", description_style)
            if not enabled:
                text.stylize(disabled_style, start)
            spans.append((start, len(text), binding.key))
        self._text, self._spans = text, spans
        self.refresh()

    def render(self) -> Text:
        return self._text

    def on_mouse_down(self, event: events.MouseDown) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return
