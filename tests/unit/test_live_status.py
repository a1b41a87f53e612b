"""The live status line appears only while a compile runs longer than a moment, and is gone when it ends."""

import io
import time

from tdiag.reports import live


class TTY(io.StringIO):
    def isatty(self):
        return True


def test_status_shows_during_a_long_compile_and_is_removed(monkeypatch):
    monkeypatch.setattr(live, "SHOW_AFTER_S", 0.05)
    stream = TTY()
    status = live.LiveStatus(stream)
    status.console.force_terminal = True
    status.on_event("compile_start", {"compile_id": "0/0", "trigger": "DYNAMO"})
    status.on_event("dynamo_start", {"dynamo_start": {"stack": [{"name": "forward"}]}, "frame_id": 0, "frame_compile_id": 0})
    status.on_event("artifact:dynamo_graph_break_reason", {})
    time.sleep(0.4)
    status.on_event("compile_end", {"compile_id": "0/0"})
    out = stream.getvalue()
    assert "tdiag: compiling forward [0/0]" in out and "1 breaks" in out
    assert status._status is None


def test_short_compiles_print_nothing():
    stream = TTY()
    status = live.LiveStatus(stream)
    status.on_event("compile_start", {"compile_id": "0/0"})
    status.on_event("compile_end", {"compile_id": "0/0"})
    time.sleep(live.SHOW_AFTER_S + 0.2)
    assert stream.getvalue() == ""
