"""Strict figures for the new-shapes corpus (issue 44): scored from one `tdiag run` per program against the
hand-written expectations (shapes_expected.py), with the precision corpus's keys and anchors (tests/corpus).

- findings right (strict precision): a reported finding is right when it is expected and carries a working fix (for
  a finding that must be information, is information), or is allowed; a finding on a library path is wrong;
- required findings with a working fix: expected findings reported at their line whose fix names a remedy the
  expert accepts (not the rule's generic template);
- first finding right: the first finding (tdiag's ranking) is the expert's first, with a working fix;
- patches offered where a verified one exists.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
sys.path.insert(0, str(HERE.parent / "corpus"))

import corpus_scoring  # noqa: E402
from corpus_scoring import ALWAYS_ALLOWED, Key  # noqa: E402


def line_of(program: str, marker: str) -> int:
    lines = (PROGRAMS / program).read_text().splitlines()
    found = [i for i, text in enumerate(lines, 1) if marker in text]
    assert len(found) == 1, f"{program}: marker {marker!r} matches lines {found}"
    return found[0]


def key(program: str, pair: tuple[str, str]) -> Key:
    return Key(pair[0], program, line_of(program, pair[1]))


def fix_text(f) -> str:
    """What the user is told to do: the headline, the suggestion's title and its patch. The why and the menu of
    alternatives are not judged: a menu that holds the right remedy among generic ones is not a working fix."""
    s = f.suggestion
    parts = [f.fix or ""]
    if s is not None:
        parts += [s.title or "", s.patch or ""]
    return "\n".join(parts)


@dataclass
class ProgramScore:
    program: str
    reported: list = field(default_factory=list)  # (Key, right: bool, note)
    required: list = field(default_factory=list)  # (Key, found: bool, fix_works: bool)
    first_right: bool | None = None  # None: nothing expected first and nothing reported
    patch_wanted: int = 0
    patch_offered: int = 0
    notes: list[str] = field(default_factory=list)


def score(program: str, analysis, shape) -> ProgramScore:
    out = ProgramScore(program)
    # every finding counts, whatever its family, except those whose presence depends on the machine's speed
    # (compile-time hotspots, runtime shares)
    findings = [f for f in analysis.findings if f.code not in ALWAYS_ALLOWED and f.family != "RUN"]
    expected = {key(program, p): p for p in shape.expect.flag}
    allowed = {key(program, p) for p in shape.expect.allow}

    def works(k, f) -> bool:
        pair = expected[k]
        if pair in shape.info and f.severity != "info":
            return False
        text = fix_text(f).lower()
        remedies = shape.fixes.get(pair)
        return remedies is None or any(all(w.lower() in text for w in r) for r in remedies)

    seen: dict[Key, object] = {}
    for f in findings:
        k = Key(f.code, f.path, f.line)
        if not corpus_scoring.user_path(f.path):
            out.reported.append((k, False, "anchored outside the user's file"))
        elif k in expected:
            ok = works(k, f)
            out.reported.append((k, ok, "" if ok else f"fix not the expert's: {f.fix!r}"))
            seen.setdefault(k, f)
        elif k in allowed:
            out.reported.append((k, True, "allowed"))
        else:
            out.reported.append((k, False, f"not expected: {f.message[:160]!r}"))
    for k, pair in expected.items():
        f = seen.get(k)
        out.required.append((k, f is not None, f is not None and works(k, f)))
        if pair in shape.patch:
            out.patch_wanted += 1
            out.patch_offered += int(f is not None and f.suggestion is not None and f.suggestion.patch is not None)
    if shape.first is None:
        out.first_right = None if not findings else False
    elif findings:
        f0 = findings[0]
        k0 = Key(f0.code, f0.path, f0.line)
        out.first_right = k0 == key(program, shape.first) and works(k0, f0)
    else:
        out.first_right = False
    return out


def figures(scores: list[ProgramScore]) -> dict[str, tuple[int, int]]:
    reported = [r for s in scores for r in s.reported]
    required = [r for s in scores for r in s.required]
    firsts = [s.first_right for s in scores if s.first_right is not None]
    return {
        "findings right (strict precision)": (sum(ok for _, ok, _ in reported), len(reported)),
        "required findings at the right line": (sum(found for _, found, _ in required), len(required)),
        "required findings with a working fix": (sum(w for _, _, w in required), len(required)),
        "first finding right, with a working fix": (sum(firsts), len(firsts)),
        "patches offered where a verified one exists": (sum(s.patch_offered for s in scores),
                                                        sum(s.patch_wanted for s in scores)),
    }


def table(scores: list[ProgramScore]) -> str:
    lines = []
    for name, (n, d) in figures(scores).items():
        lines.append(f"{name:48} {n}/{d} = {n / d:.2f}" if d else f"{name:48} -")
    for s in scores:
        for k, ok, note in s.reported:
            if not ok:
                lines.append(f"  WRONG   {k}  {note}")
        for k, found, works in s.required:
            if not (found and works):
                lines.append(f"  MISSING {k}" if not found else f"  NO FIX  {k}")
    return "\n".join(lines)
