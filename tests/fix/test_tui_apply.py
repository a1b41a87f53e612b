"""The TUI's `a` key on a real record: the patch is shown, written only after `y`, and `tdiag fix --undo` reverts it."""

from __future__ import annotations

import asyncio
import html
import re

from ._project import PROGRAMS, make_project


def _screen_text(app) -> str:
    """The characters on screen, from the app's SVG screenshot (what the user sees, styles dropped)."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))).replace("\xa0", " ")


async def _drive(record_dir, keys_after_a: str):
    from tdiag.tui import make_app
    from tdiag.tui.screens.apply_patch import ApplyPatchScreen

    from tdiag.commands._analysis import load_analysis

    analysis = load_analysis(str(record_dir))
    app = make_app(analysis, record_dir)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.press("2")
        target = next(f for f in analysis.findings if f.code == "BRK001")
        while app.screen.selected_finding is not target:  # rows are ranked; walk down to the branch finding
            await pilot.press("down")
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ApplyPatchScreen)
        shown = _screen_text(app)
        await pilot.press(keys_after_a)
        await pilot.pause()
        return shown, [str(n.message) for n in app._notifications]


def test_a_shows_the_diff_and_applies_after_confirmation(tmp_path, session_env):
    project = make_project(tmp_path, PROGRAMS / "branchy.py", session_env)
    path = project.root / "branchy.py"
    original = path.read_text()

    shown, notes = asyncio.run(_drive(project.record, "n"))
    assert "+    y = torch.where(" in shown and "Write this to branchy.py?" in shown
    assert path.read_text() == original  # cancelled: nothing written

    shown, notes = asyncio.run(_drive(project.record, "y"))
    assert "torch.where(" in path.read_text() and "if y.sum() > 9.5" not in path.read_text()
    assert any("patched branchy.py" in n and "--undo" in n for n in notes), notes
    assert list((project.record / "fix").glob("undo-*.json"))

    undone = project.fix("--undo")
    assert undone.returncode == 0, undone.stderr
    assert path.read_text() == original
