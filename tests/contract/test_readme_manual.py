"""The README is a manual a newcomer reads in ten minutes (issue 65): at most 300 lines, no dated history (at most
three dates), every relative link resolving to a file of the repository. History goes to docs/ and CHANGELOG.md,
whose links (and those of docs/) must resolve too; the changelog keeps the Keep a Changelog form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
CHANGELOG = REPO / "CHANGELOG.md"
MAX_LINES, MAX_DATES = 300, 3

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|"
          r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_DATES = re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}} {_MONTH}\b")
_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)


def dates(text: str) -> list[str]:
    return _DATES.findall(text)


def relative_links(text: str) -> list[str]:
    """Every link target of a Markdown text that names a file of the repository (no scheme, not a bare anchor)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # a fenced block shows text, it links nothing
    targets = _INLINE_LINK.findall(text) + _REFERENCE_LINK.findall(text)
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, flags=re.I) and not t.startswith("#")]


def unresolved(page: Path) -> list[str]:
    missing = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        path = target.split("#", 1)[0]
        if not (page.parent / path).resolve().exists():
            missing.append(target)
    return missing


def test_the_readme_is_at_most_300_lines():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines: history goes to docs/ and CHANGELOG.md"


def test_the_readme_holds_at_most_three_dates():
    found = dates(README.read_text(encoding="utf-8"))
    assert len(found) <= MAX_DATES, f"README.md has dated history: {found}"


@pytest.mark.parametrize("name", ["README.md", "CHANGELOG.md"])
def test_every_relative_link_resolves(name):
    page = REPO / name
    assert relative_links(page.read_text(encoding="utf-8")), f"{name} links nothing: the check would check nothing"
    assert unresolved(page) == []


@pytest.mark.parametrize("page", sorted((REPO / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_relative_link_of_the_docs_resolves(page):
    """Where the README's history went: its links resolve too (relative to docs/)."""
    assert unresolved(page) == []


def test_the_checks_catch_what_they_look_for(tmp_path):
    """The helpers above find a dangling link, and both date styles (so the tests above can fail)."""
    page = tmp_path / "page.md"
    page.write_text("[a](docs/missing.md) [b](https://example.org) [c](#anchor) [d](page.md#x)\n[e]: gone.md\n"
                    "```\n[f](in-a-block.md)\n```\n")
    assert unresolved(page) == ["docs/missing.md", "gone.md"]
    assert dates("on 2026-12-05, on December 5 and on Dec 6th; not 20261203") == ["2026-12-05", "December 5",
                                                                                  "Dec 6th"]


def test_the_changelog_keeps_the_keep_a_changelog_form():
    text = CHANGELOG.read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    releases = re.findall(r"^## (.+)$", text, flags=re.M)
    assert releases and releases[0] == "[Unreleased]"
    for heading in releases[1:]:
        assert re.fullmatch(r"\[[^\]]+\] - \d{4}-\d{2}-\d{2}|\d{4}-\d{2}-\d{2}", heading), heading
    days = [h[-10:] for h in releases[1:]]
    assert days == sorted(days, reverse=True), "newest first"
    kinds = set(re.findall(r"^### (.+)$", text, flags=re.M))
    assert kinds and kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
